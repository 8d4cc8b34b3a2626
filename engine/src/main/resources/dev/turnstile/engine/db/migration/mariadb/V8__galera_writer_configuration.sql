-- The Galera cluster configuration (wsrep_cluster_conf_id) a writer record was made in: only records
-- of the current configuration count, so the engines of a node that left are not taken for writers
-- beside the node they fail over to (GaleraWriterNodes). Used on Galera only; made on every database
-- so that the schema is one. Idempotent, as every migration after version 1 is.
ALTER TABLE ts_writer_node ADD COLUMN IF NOT EXISTS cluster_conf bigint DEFAULT 0 NOT NULL;
