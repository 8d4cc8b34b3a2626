-- Processes that have a waiter on a notification channel say so here, until when; a release that
-- finds nobody waiting sends no NOTIFY. Every NOTIFY takes one database-wide lock until its commit
-- ends, so one that nobody hears serialized every release of the database (issue 16).
CREATE TABLE ts_waiting (
    channel varchar(64) NOT NULL PRIMARY KEY,
    waiting_until timestamp(6) with time zone NOT NULL
);
