-- Who waits on a notification channel (used on PostgreSQL, which has notifications; made on every
-- database so that the schema is one).
CREATE TABLE ts_waiting (
    channel varchar(64) NOT NULL PRIMARY KEY,
    waiting_until timestamp(6) with time zone NOT NULL
);
