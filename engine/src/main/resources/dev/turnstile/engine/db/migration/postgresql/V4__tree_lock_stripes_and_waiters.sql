-- Processes that have a waiter on a notification channel say so here, until when; a release that
-- finds nobody waiting sends no NOTIFY. Every NOTIFY takes one database-wide lock until its commit
-- ends, so one that nobody hears serialized every release of the database (issue 16).
CREATE TABLE IF NOT EXISTS ts_waiting (
    channel varchar(64) NOT NULL PRIMARY KEY,
    waiting_until timestamp(6) with time zone NOT NULL
);

-- Sites and workshops spread their marks over more stripes (32 and 16, IntentionStripes): marks an
-- older release wrote would be released on rows they are not on. As version 3, the engine runs this
-- only while no tree lock is live (Migrations refuses otherwise); node rows come back on demand.
DELETE FROM ts_tree_lease;
DELETE FROM ts_tree_node;
