-- A request key is its sender's: the same key sent by another user is another request, not a way
-- to read the numbers the first sender was given. Rows kept from before name their sender where the
-- register names who was issued the block's first number, else nobody (a repeat of such a key
-- within its retention takes new numbers). Idempotent, as every migration after version 1 is: a
-- release-0.1 database is baselined at 1 and runs them all on the tables it has.
ALTER TABLE ts_dispenser_request ADD COLUMN IF NOT EXISTS requested_by varchar(128) NOT NULL DEFAULT '';
UPDATE ts_dispenser_request r SET requested_by = COALESCE((SELECT i.issued_by FROM ts_dispenser_issue i
    WHERE i.dispenser = r.dispenser AND i.period = COALESCE(r.period, '') AND i.number = r.first_number), '')
    WHERE r.requested_by = '';
ALTER TABLE ts_dispenser_request DROP CONSTRAINT ts_dispenser_request_pkey;
ALTER TABLE ts_dispenser_request ADD PRIMARY KEY (dispenser, requested_by, request_key);
