-- A tree lock's holder is the session's user (up to 128 characters, as ts_object.creator), no
-- longer a free-text owner of up to 64.
ALTER TABLE ts_tree_lease ALTER COLUMN owner_info TYPE varchar(128);
