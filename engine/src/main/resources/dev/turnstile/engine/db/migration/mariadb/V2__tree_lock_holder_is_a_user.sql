-- A tree lock's holder is the session's user (up to 128 characters, as ts_object.creator), no
-- longer a free-text owner of up to 64. Harmless if it runs twice (Galera: see V1).
ALTER TABLE ts_tree_lease MODIFY owner_info varchar(128) NOT NULL;
