-- Who waits on a notification channel (used on PostgreSQL, which has notifications; made on every
-- database so that the schema is one). Harmless if it runs twice (a database baselined at 1 that has it).
CREATE TABLE IF NOT EXISTS ts_waiting (
    channel varchar(64) NOT NULL PRIMARY KEY,
    waiting_until timestamp(6) with time zone NOT NULL
);

-- Sites and workshops spread their marks over more stripes (32 and 16, IntentionStripes): marks an
-- older release wrote would be released on rows they are not on. As version 3, the engine runs this
-- only while no tree lock is live (Migrations refuses otherwise); node rows come back on demand.
DELETE FROM ts_tree_lease;
DELETE FROM ts_tree_node;
