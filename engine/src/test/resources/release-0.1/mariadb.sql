-- A database made by release 0.1 (Hibernate's schema update, then the collation conversion): mariadb-dump of a dispenser 'legacy' (register on) after three numbers, changes on.
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `ts_change` (
  `change_id` bigint(20) NOT NULL AUTO_INCREMENT,
  `changed_at` datetime(6) NOT NULL,
  `class_name` varchar(64) NOT NULL,
  `change_kind` varchar(8) NOT NULL,
  `object_id` uuid NOT NULL,
  `feed_position` bigint(20) DEFAULT NULL,
  `prop_changes` mediumtext NOT NULL,
  `sequenced_at` datetime(6) DEFAULT NULL,
  `user_name` varchar(128) NOT NULL,
  `usn_after` bigint(20) DEFAULT NULL,
  `usn_before` bigint(20) DEFAULT NULL,
  PRIMARY KEY (`change_id`),
  UNIQUE KEY `ts_change_position` (`feed_position`),
  KEY `ts_change_time` (`changed_at`)
) ENGINE=InnoDB AUTO_INCREMENT=5 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
/*!40101 SET character_set_client = @saved_cs_client */;
INSERT INTO `ts_change` VALUES
(1,'2026-12-02 10:37:56.431595','Dispenser','CREATE','2ac68c64-662e-3eb3-b2ed-9039e8406a1b',NULL,'{\"Counter\":{\"n\":{\"l\":0}},\"DispenserName\":{\"n\":{\"s\":\"legacy\"}},\"Format\":{\"n\":{\"s\":\"L-{seq:4}\"}},\"Period\":{\"n\":{\"s\":\"\"}},\"RegisterIssued\":{\"n\":{\"b\":true}},\"ResetPeriod\":{\"n\":{\"s\":\"NEVER\"}},\"StartValue\":{\"n\":{\"l\":1}}}',NULL,'carol',0,NULL),
(2,'2026-12-02 10:37:56.473448','Dispenser','UPDATE','2ac68c64-662e-3eb3-b2ed-9039e8406a1b',NULL,'{\"Counter\":{\"o\":{\"l\":0},\"n\":{\"l\":1}}}',NULL,'turnstile',1,0),
(3,'2026-12-02 10:37:56.499438','Dispenser','UPDATE','2ac68c64-662e-3eb3-b2ed-9039e8406a1b',NULL,'{\"Counter\":{\"o\":{\"l\":1},\"n\":{\"l\":2}}}',NULL,'turnstile',2,1),
(4,'2026-12-02 10:37:56.503608','Dispenser','UPDATE','2ac68c64-662e-3eb3-b2ed-9039e8406a1b',NULL,'{\"Counter\":{\"o\":{\"l\":2},\"n\":{\"l\":3}}}',NULL,'turnstile',3,2);
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `ts_change_sequencer` (
  `id` int(11) NOT NULL,
  `last_position` bigint(20) NOT NULL,
  `usn` bigint(20) NOT NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
/*!40101 SET character_set_client = @saved_cs_client */;
INSERT INTO `ts_change_sequencer` VALUES
(1,0,0);
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `ts_class` (
  `class_name` varchar(64) NOT NULL,
  `enforce_locks` bit(1) DEFAULT NULL,
  `property_defs` mediumtext NOT NULL,
  `revision` int(11) NOT NULL,
  `superclass_name` varchar(64) NOT NULL,
  PRIMARY KEY (`class_name`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
/*!40101 SET character_set_client = @saved_cs_client */;
INSERT INTO `ts_class` VALUES
('Dispenser','\0','[{\"name\":\"DispenserName\",\"type\":\"STRING\",\"required\":true,\"defaultValue\":null,\"maxLength\":64},{\"name\":\"Counter\",\"type\":\"INT64\",\"required\":true,\"defaultValue\":null,\"maxLength\":4000},{\"name\":\"StartValue\",\"type\":\"INT64\",\"required\":true,\"defaultValue\":null,\"maxLength\":4000},{\"name\":\"Period\",\"type\":\"STRING\",\"required\":true,\"defaultValue\":null,\"maxLength\":16},{\"name\":\"ResetPeriod\",\"type\":\"STRING\",\"required\":true,\"defaultValue\":null,\"maxLength\":16},{\"name\":\"Format\",\"type\":\"STRING\",\"required\":false,\"defaultValue\":null,\"maxLength\":200},{\"name\":\"RegisterIssued\",\"type\":\"BOOLEAN\",\"required\":false,\"defaultValue\":null,\"maxLength\":4000},{\"name\":\"AdminAction\",\"type\":\"STRING\",\"required\":false,\"defaultValue\":null,\"maxLength\":400}]',0,'CustomObject'),
('EditableArticle','\0','[{\"name\":\"ArticleType\",\"type\":\"STRING\",\"required\":false,\"defaultValue\":null,\"maxLength\":32},{\"name\":\"ArticleKey\",\"type\":\"STRING\",\"required\":false,\"defaultValue\":null,\"maxLength\":64},{\"name\":\"Html\",\"type\":\"STRING\",\"required\":false,\"defaultValue\":null,\"maxLength\":1000000}]',0,'CustomObject');
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `ts_dispenser_issue` (
  `dispenser` varchar(64) NOT NULL,
  `number` bigint(20) NOT NULL,
  `period` varchar(16) NOT NULL,
  `issued_at` datetime(6) NOT NULL,
  `issued_by` varchar(128) NOT NULL,
  `last_number` bigint(20) DEFAULT NULL,
  `object_id` uuid DEFAULT NULL,
  `void_reason` varchar(400) DEFAULT NULL,
  `voided_by` varchar(128) DEFAULT NULL,
  PRIMARY KEY (`dispenser`,`number`,`period`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
/*!40101 SET character_set_client = @saved_cs_client */;
INSERT INTO `ts_dispenser_issue` VALUES
('legacy',1,'','2026-12-02 10:37:56.473448','wf',NULL,NULL,NULL,NULL),
('legacy',2,'','2026-12-02 10:37:56.499438','wf',NULL,NULL,NULL,NULL),
('legacy',3,'','2026-12-02 10:37:56.503608','wf',NULL,NULL,NULL,NULL);
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `ts_dispenser_request` (
  `dispenser` varchar(64) NOT NULL,
  `request_key` varchar(128) NOT NULL,
  `number_count` int(11) NOT NULL,
  `expires_at` datetime(6) NOT NULL,
  `first_number` bigint(20) NOT NULL,
  `issued_on` date NOT NULL,
  `period` varchar(16) DEFAULT NULL,
  PRIMARY KEY (`dispenser`,`request_key`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
/*!40101 SET character_set_client = @saved_cs_client */;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `ts_edit_audit` (
  `audit_id` bigint(20) NOT NULL AUTO_INCREMENT,
  `at_time` datetime(6) NOT NULL,
  `detail` varchar(400) DEFAULT NULL,
  `operation` varchar(16) NOT NULL,
  `outcome` varchar(16) NOT NULL,
  `resource_id` varchar(2000) DEFAULT NULL,
  `user_id` varchar(128) NOT NULL,
  PRIMARY KEY (`audit_id`),
  KEY `ts_edit_audit_resource` (`resource_id`(768))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
/*!40101 SET character_set_client = @saved_cs_client */;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `ts_edit_lock` (
  `resource_id` varchar(200) NOT NULL,
  `article_usn` bigint(20) DEFAULT NULL,
  `heart_beat_time` datetime(6) NOT NULL,
  `lock_id` varchar(36) NOT NULL,
  `start_time` datetime(6) NOT NULL,
  `state` int(11) NOT NULL,
  `user_id` varchar(128) NOT NULL,
  `usn` bigint(20) NOT NULL,
  PRIMARY KEY (`resource_id`),
  UNIQUE KEY `ts_edit_lock_id` (`lock_id`),
  KEY `ts_edit_lock_user` (`user_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
/*!40101 SET character_set_client = @saved_cs_client */;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `ts_edit_turn` (
  `turn_key` varchar(210) NOT NULL,
  `usn` bigint(20) NOT NULL,
  PRIMARY KEY (`turn_key`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
/*!40101 SET character_set_client = @saved_cs_client */;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `ts_feed_client` (
  `client_name` varchar(64) NOT NULL,
  `filter_json` varchar(4000) NOT NULL,
  `holder` varchar(64) DEFAULT NULL,
  `lease_until` datetime(6) DEFAULT NULL,
  `delivery_mode` varchar(8) NOT NULL,
  `feed_position` bigint(20) NOT NULL,
  `touched_at` datetime(6) NOT NULL,
  `usn` bigint(20) NOT NULL,
  PRIMARY KEY (`client_name`),
  KEY `ts_feed_client_touched` (`touched_at`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
/*!40101 SET character_set_client = @saved_cs_client */;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `ts_feed_queue` (
  `delivery_id` bigint(20) NOT NULL AUTO_INCREMENT,
  `change_json` mediumtext NOT NULL,
  `client_name` varchar(64) NOT NULL,
  PRIMARY KEY (`delivery_id`),
  KEY `ts_feed_queue_client` (`client_name`,`delivery_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
/*!40101 SET character_set_client = @saved_cs_client */;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `ts_object` (
  `id` uuid NOT NULL,
  `class_name` varchar(64) NOT NULL,
  `creator` varchar(128) NOT NULL,
  `date_created` datetime(6) NOT NULL,
  `date_last_modified` datetime(6) NOT NULL,
  `last_modifier` varchar(128) NOT NULL,
  `lock_holder` varchar(128) DEFAULT NULL,
  `lock_owner` varchar(64) DEFAULT NULL,
  `lock_timeout` int(11) DEFAULT NULL,
  `lock_token` uuid DEFAULT NULL,
  `prop_values` mediumtext NOT NULL,
  `usn` bigint(20) NOT NULL,
  PRIMARY KEY (`id`),
  KEY `ts_object_class` (`class_name`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
/*!40101 SET character_set_client = @saved_cs_client */;
INSERT INTO `ts_object` VALUES
('2ac68c64-662e-3eb3-b2ed-9039e8406a1b','Dispenser','carol','2026-12-02 10:37:56.431595','2026-12-02 10:37:56.503608','turnstile',NULL,NULL,NULL,NULL,'{\"RegisterIssued\":true,\"Counter\":3,\"Format\":\"L-{seq:4}\",\"StartValue\":1,\"Period\":\"\",\"DispenserName\":\"legacy\",\"ResetPeriod\":\"NEVER\"}',3);
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `ts_tree_lease` (
  `lease_id` varchar(36) NOT NULL,
  `acquired_at` datetime(6) NOT NULL,
  `expires_at` datetime(6) NOT NULL,
  `lease_nodes` mediumtext NOT NULL,
  `owner_info` varchar(64) NOT NULL,
  `usn` bigint(20) NOT NULL,
  PRIMARY KEY (`lease_id`),
  KEY `ts_tree_lease_expiry` (`expires_at`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
/*!40101 SET character_set_client = @saved_cs_client */;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `ts_tree_node` (
  `node_path` varchar(512) NOT NULL,
  `head_expires` datetime(6) DEFAULT NULL,
  `head_lease` varchar(36) DEFAULT NULL,
  `head_mode` varchar(3) DEFAULT NULL,
  `head_ticket` varchar(60) DEFAULT NULL,
  `is_count` int(11) NOT NULL,
  `ix_count` int(11) NOT NULL,
  `s_count` int(11) NOT NULL,
  `six_count` int(11) NOT NULL,
  `usn` bigint(20) NOT NULL,
  `x_count` int(11) NOT NULL,
  PRIMARY KEY (`node_path`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
/*!40101 SET character_set_client = @saved_cs_client */;
