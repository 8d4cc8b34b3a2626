-- A number in doubt: its take committed, but whether the answer reached the caller is not known yet.
-- A plain take writes its rows in doubt and the engine clears the mark once the caller has the
-- numbers; a process that died, or a call that gave up, between the commit and that leaves it set,
-- so the register tells such numbers from used ones. Rows from before were all answered. Idempotent,
-- as every migration after version 1 is.
ALTER TABLE ts_dispenser_issue ADD COLUMN IF NOT EXISTS in_doubt boolean DEFAULT false NOT NULL;
