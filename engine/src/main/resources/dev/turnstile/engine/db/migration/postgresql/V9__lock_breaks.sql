-- Locks broken by an operator (the lock-breaking role): one row per broken lock of any kind (an
-- edit lock, a tree lock, an object's cooperative lock), keyed by the lock's token, so its holder's
-- next call is told who broke it, when and why, and the console can show it. Idempotent, as every
-- migration after version 1 is.
CREATE TABLE IF NOT EXISTS ts_lock_break (
    lock_token varchar(64) NOT NULL PRIMARY KEY,
    lock_kind varchar(16) NOT NULL,
    holder varchar(128) NOT NULL,
    locked_what varchar(600) NOT NULL,
    broken_by varchar(128) NOT NULL,
    broken_at timestamp(6) with time zone NOT NULL,
    reason varchar(200) NOT NULL
);
CREATE INDEX IF NOT EXISTS ts_lock_break_at ON ts_lock_break (broken_at);
