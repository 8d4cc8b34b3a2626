-- Who waits on a notification channel (used on PostgreSQL, which has notifications; made on every
-- database so that the schema is one). Harmless if it runs twice (Galera: see V1).
CREATE TABLE IF NOT EXISTS ts_waiting (
    channel varchar(64) NOT NULL PRIMARY KEY,
    waiting_until datetime(6) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
