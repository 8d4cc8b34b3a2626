-- Tree locks: the marks of a site's and a workshop's nodes are spread over several rows of
-- ts_tree_node (IntentionStripes), so marks an older release wrote would be released on rows they
-- are not on. The engine runs this only while no tree lock is live (Migrations refuses otherwise);
-- what is left — lapsed leases, their marks, queue places — goes. Node rows come back on demand.
DELETE FROM ts_tree_lease;
DELETE FROM ts_tree_node;
