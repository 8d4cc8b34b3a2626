-- The Turnstile schema as release 0.1 made it (Hibernate's schema update, then SchemaUpgrade); a
-- database made by that release is baselined at this version instead of running it. Every table
-- compares keys exactly (utf8mb4_nopad_bin: MariaDB's default collations ignore case, accents and
-- trailing spaces). Each statement may run twice: on Galera, Flyway's lock is one node's, so
-- processes on several nodes may migrate a new database at once (Migrations retries the loser).

CREATE TABLE IF NOT EXISTS ts_object (
    id uuid NOT NULL PRIMARY KEY,
    class_name varchar(64) NOT NULL,
    creator varchar(128) NOT NULL,
    date_created datetime(6) NOT NULL,
    date_last_modified datetime(6) NOT NULL,
    last_modifier varchar(128) NOT NULL,
    lock_holder varchar(128),
    lock_owner varchar(64),
    lock_timeout integer,
    lock_token uuid,
    prop_values mediumtext NOT NULL,
    usn bigint NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
CREATE INDEX IF NOT EXISTS ts_object_class ON ts_object (class_name);

CREATE TABLE IF NOT EXISTS ts_class (
    class_name varchar(64) NOT NULL PRIMARY KEY,
    enforce_locks bit(1),
    property_defs mediumtext NOT NULL,
    revision integer NOT NULL,
    superclass_name varchar(64) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

CREATE TABLE IF NOT EXISTS ts_change (
    change_id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY,
    changed_at datetime(6) NOT NULL,
    class_name varchar(64) NOT NULL,
    change_kind varchar(8) NOT NULL,
    object_id uuid NOT NULL,
    feed_position bigint,
    prop_changes mediumtext NOT NULL,
    sequenced_at datetime(6),
    user_name varchar(128) NOT NULL,
    usn_after bigint,
    usn_before bigint,
    CONSTRAINT ts_change_position UNIQUE (feed_position)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
CREATE INDEX IF NOT EXISTS ts_change_time ON ts_change (changed_at);

CREATE TABLE IF NOT EXISTS ts_change_sequencer (
    id integer NOT NULL PRIMARY KEY,
    last_position bigint NOT NULL,
    usn bigint NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
INSERT IGNORE INTO ts_change_sequencer (id, last_position, usn) VALUES (1, 0, 0);

CREATE TABLE IF NOT EXISTS ts_feed_client (
    client_name varchar(64) NOT NULL PRIMARY KEY,
    filter_json varchar(4000) NOT NULL,
    holder varchar(64),
    lease_until datetime(6),
    delivery_mode varchar(8) NOT NULL,
    feed_position bigint NOT NULL,
    touched_at datetime(6) NOT NULL,
    usn bigint NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
CREATE INDEX IF NOT EXISTS ts_feed_client_touched ON ts_feed_client (touched_at);

CREATE TABLE IF NOT EXISTS ts_feed_queue (
    delivery_id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY,
    change_json mediumtext NOT NULL,
    client_name varchar(64) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
CREATE INDEX IF NOT EXISTS ts_feed_queue_client ON ts_feed_queue (client_name, delivery_id);

CREATE TABLE IF NOT EXISTS ts_dispenser_issue (
    dispenser varchar(64) NOT NULL,
    number bigint NOT NULL,
    period varchar(16) NOT NULL,
    issued_at datetime(6) NOT NULL,
    issued_by varchar(128) NOT NULL,
    last_number bigint,
    object_id uuid,
    void_reason varchar(400),
    voided_by varchar(128),
    PRIMARY KEY (dispenser, number, period)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

CREATE TABLE IF NOT EXISTS ts_dispenser_request (
    dispenser varchar(64) NOT NULL,
    request_key varchar(128) NOT NULL,
    number_count integer NOT NULL,
    expires_at datetime(6) NOT NULL,
    first_number bigint NOT NULL,
    issued_on date NOT NULL,
    period varchar(16),
    PRIMARY KEY (dispenser, request_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

CREATE TABLE IF NOT EXISTS ts_edit_lock (
    resource_id varchar(200) NOT NULL PRIMARY KEY,
    article_usn bigint,
    heart_beat_time datetime(6) NOT NULL,
    lock_id varchar(36) NOT NULL,
    start_time datetime(6) NOT NULL,
    state integer NOT NULL,
    user_id varchar(128) NOT NULL,
    usn bigint NOT NULL,
    CONSTRAINT ts_edit_lock_id UNIQUE (lock_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
CREATE INDEX IF NOT EXISTS ts_edit_lock_user ON ts_edit_lock (user_id);

CREATE TABLE IF NOT EXISTS ts_edit_turn (
    turn_key varchar(210) NOT NULL PRIMARY KEY,
    usn bigint NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

CREATE TABLE IF NOT EXISTS ts_edit_audit (
    audit_id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY,
    at_time datetime(6) NOT NULL,
    detail varchar(400),
    operation varchar(16) NOT NULL,
    outcome varchar(16) NOT NULL,
    resource_id varchar(2000),
    user_id varchar(128) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
CREATE INDEX IF NOT EXISTS ts_edit_audit_resource ON ts_edit_audit (resource_id(768));

CREATE TABLE IF NOT EXISTS ts_tree_node (
    node_path varchar(512) NOT NULL PRIMARY KEY,
    head_expires datetime(6),
    head_lease varchar(36),
    head_mode varchar(3),
    head_ticket varchar(60),
    is_count integer NOT NULL,
    ix_count integer NOT NULL,
    s_count integer NOT NULL,
    six_count integer NOT NULL,
    usn bigint NOT NULL,
    x_count integer NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

CREATE TABLE IF NOT EXISTS ts_tree_lease (
    lease_id varchar(36) NOT NULL PRIMARY KEY,
    acquired_at datetime(6) NOT NULL,
    expires_at datetime(6) NOT NULL,
    lease_nodes mediumtext NOT NULL,
    owner_info varchar(64) NOT NULL,
    usn bigint NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
CREATE INDEX IF NOT EXISTS ts_tree_lease_expiry ON ts_tree_lease (expires_at);
