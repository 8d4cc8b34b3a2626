-- Which Galera node each engine writes through, until when (GaleraWriterNodes: engines writing
-- through two nodes are warned of). Used on Galera only; made on every database so that the schema
-- is one. Harmless if it runs twice (Galera: see V1).
CREATE TABLE IF NOT EXISTS ts_writer_node (
    engine_id varchar(128) NOT NULL,
    node_name varchar(255) NOT NULL,
    seen_until datetime(6) NOT NULL,
    PRIMARY KEY (engine_id, node_name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
