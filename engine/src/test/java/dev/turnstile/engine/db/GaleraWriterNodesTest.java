package dev.turnstile.engine.db;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.LogCapture;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.mariadb.jdbc.MariaDbDataSource;
import dev.turnstile.engine.Failures;

import javax.sql.DataSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Engines writing through two nodes of a Galera cluster are refused at open, or, where allowed,
 * warned of (Galera can lose a commit it acknowledged between writer nodes); engines on a single
 * writer are not, nor after it failed over. On a database of its own on the cluster, so that no
 * other suite's engines count.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("galera")
class GaleraWriterNodesTest {
    /** How an engine is named: its process, host and a short id. */
    private static final String ENGINE = "pid \\d+ on [^,;]+, engine [0-9a-f]{8}";
    private static final String ADVICE = ". Galera can lose a commit it acknowledged when two nodes write the same row, and then"
            + " a number is issued twice or a lock has two holders. Give every engine the same failover URL, hosts in the"
            + " same order (jdbc:mariadb:sequential://db1,db2,db3/...), or a proxy that sends every write to one node"
            + " (README, \"A MariaDB Galera cluster\").";
    private EngineConfig own;

    @BeforeAll
    void create() throws SQLException {
        own = TestDatabases.ownDatabase(TestDatabases.galera(1), "ts_writers");
        ContentEngine.open(own).close(); // makes the tables
    }

    @AfterEach
    void forgetEveryEngine() throws SQLException {
        execute(1, "DELETE FROM ts_writer_node");
    }

    @AfterAll
    void drop() throws SQLException {
        TestDatabases.dropOwnDatabase(TestDatabases.galera(1), own);
    }

    @Test
    void anEngineThatWouldWriteThroughASecondNode_isRefusedAtOpen_namingTheNodesAndTheSetting() throws SQLException {
        try (LogCapture log = new LogCapture(GaleraWriterNodes.class.getName());
             ContentEngine first = ContentEngine.open(on(1))) {
            EngineConfig second = on(2);
            assertThat(Failures.failure(() -> ContentEngine.open(second)).getMessage()).matches(Pattern.quote(
                    "E_CONFIG_INVALID: Cannot open Turnstile on " + second.jdbcUrl()
                            + ": engines would write through 2 nodes of one Galera cluster: " + node(1) + " by ") + ENGINE
                    + Pattern.quote("; " + node(2) + " by ") + ENGINE + Pattern.quote(" (this one: ") + ENGINE
                    + Pattern.quote(")" + ADVICE + " To accept that risk, set database.severalGaleraWriters: true"
                    + " (EngineConfig.Builder.severalGaleraWriters)."));
            assertThat(records()).as("the refused engine left no record").singleElement().asString().endsWith(node(1));
            assertThat(log.lines()).isEmpty();
        }
    }

    @Test
    void enginesAllowedOnTwoNodes_areWarnedOf_namingEachNodeAndItsEngines() throws SQLException {
        try (LogCapture log = new LogCapture(GaleraWriterNodes.class.getName());
             ContentEngine first = ContentEngine.open(on(1))) {
            assertThat(log.lines()).as("one engine").isEmpty();
            try (ContentEngine second = ContentEngine.open(EngineConfig.from(on(2)).severalGaleraWriters(true).build())) {
                assertThat(log.lines()).singleElement().asString().matches(Pattern.quote(
                        "WARN Turnstile engines write through 2 nodes of one Galera cluster: " + node(1) + " by ")
                        + ENGINE + Pattern.quote("; " + node(2) + " by ") + ENGINE + Pattern.quote(ADVICE));
            }
        }
    }

    @Test
    void enginesOnTheSingleWriterUrl_areNotWarnedOf_andEachRecordsTheNodeItWritesThrough() throws SQLException {
        EngineConfig singleWriter = TestDatabases.sameDatabaseOn(TestDatabases.galeraSingleWriter(), own);
        try (LogCapture log = new LogCapture(GaleraWriterNodes.class.getName());
             ContentEngine first = ContentEngine.open(singleWriter);
             ContentEngine second = ContentEngine.open(singleWriter)) {
            assertThat(records()).as("engine and node of each record").hasSize(2)
                    .allSatisfy(record -> assertThat(record).matches(ENGINE + Pattern.quote(" " + node(1))));
            assertThat(log.lines()).isEmpty();
        }
        assertThat(records()).as("records once the engines closed").isEmpty();
    }

    @Test
    void anotherNodesRecord_countsUntilItsLeaseLapses_byTheDatabaseClock() throws SQLException {
        String elsewhere = "pid 1 on elsewhere, engine 00000000";
        execute(3, "INSERT INTO ts_writer_node (engine_id, node_name, seen_until, cluster_conf) VALUES ('" + elsewhere + "', '"
                + node(3) + "', UTC_TIMESTAMP(6) - INTERVAL 1 SECOND, " + CONFIGURATION + ")");
        try (LogCapture log = new LogCapture(GaleraWriterNodes.class.getName())) {
            ContentEngine.open(on(1)).close();
            assertThat(log.lines()).as("with a lapsed record of another node").isEmpty();

            execute(3, "UPDATE ts_writer_node SET seen_until = UTC_TIMESTAMP(6) + INTERVAL 30 SECOND");
            ContentEngine.open(EngineConfig.from(on(1)).severalGaleraWriters(true).build()).close();
            assertThat(log.lines()).singleElement().asString().matches(Pattern.quote(
                    "WARN Turnstile engines write through 2 nodes of one Galera cluster: " + node(1) + " by ")
                    + ENGINE + Pattern.quote("; " + node(3) + " by " + elsewhere + ADVICE));
        }
    }

    @Test
    void aRecordOfAnEarlierClusterConfiguration_isNoWriter_soAFailoverIsNeitherRefusedNorWarnedOf() throws SQLException {
        // The dead node's engines as they were recorded before it left the cluster (its membership changed since).
        String beforeTheFailover = "pid 1 on elsewhere, engine 11111111";
        execute(3, "INSERT INTO ts_writer_node (engine_id, node_name, seen_until, cluster_conf) VALUES ('" + beforeTheFailover
                + "', '" + node(3) + "', UTC_TIMESTAMP(6) + INTERVAL 30 SECOND, " + CONFIGURATION + " - 1)");
        try (LogCapture log = new LogCapture(GaleraWriterNodes.class.getName())) {
            ContentEngine.open(on(1)).close();
            assertThat(log.lines()).isEmpty();
        }
    }

    @Test
    void anEngineThatFailsOver_movesItsRecord_andIsNoSecondWriterBesideItself() throws SQLException {
        MariaDbDataSource[] node = {dataSource(1)};
        DataSource failingOver = new DelegatingDataSource(() -> node[0]);
        try (LogCapture log = new LogCapture(GaleraWriterNodes.class.getName())) {
            GaleraWriterNodes engine = GaleraWriterNodes.recordedFrom(failingOver, false, "a failover URL");
            node[0] = dataSource(2); // its connections now land on node 2, as a sequential URL's after node 1 died
            engine.noteNow();
            assertThat(records()).singleElement().asString().matches(ENGINE + Pattern.quote(" " + node(2)));
            assertThat(log.lines()).isEmpty();
            engine.forget();
        }
    }

    @Test
    void writersBackOnOneNode_areSaidToBe_onceTheOtherNodesEngineClosed() throws SQLException {
        try (LogCapture log = new LogCapture(GaleraWriterNodes.class.getName())) {
            GaleraWriterNodes first = GaleraWriterNodes.recordedFrom(dataSource(1), false, "node 1");
            GaleraWriterNodes second = GaleraWriterNodes.recordedFrom(dataSource(2), true, "node 2");
            first.noteNow();
            assertThat(log.lines()).as("the second engine's warning at open, then the first's").hasSize(2)
                    .allSatisfy(line -> assertThat(line).startsWith("WARN Turnstile engines write through 2 nodes"));

            second.forget();
            first.noteNow();
            first.noteNow();
            assertThat(log.lines()).hasSize(3).last().asString()
                    .matches(Pattern.quote("INFO Turnstile engines write through one Galera node again: " + node(1) + " by ") + ENGINE);
        }
    }

    /** The cluster's configuration now, as SQL (the same on every member). */
    private static final String CONFIGURATION = "(SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS"
            + " WHERE VARIABLE_NAME = 'WSREP_CLUSTER_CONF_ID')";

    /** A DataSource whose connections come from whichever the supplier gives now. */
    private record DelegatingDataSource(java.util.function.Supplier<DataSource> current) implements DataSource {
        @Override
        public Connection getConnection() throws SQLException {
            return current.get().getConnection();
        }

        @Override
        public Connection getConnection(String user, String password) throws SQLException {
            return current.get().getConnection(user, password);
        }

        @Override
        public java.io.PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(java.io.PrintWriter out) {
        }

        @Override
        public void setLoginTimeout(int seconds) {
        }

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public java.util.logging.Logger getParentLogger() {
            return java.util.logging.Logger.getGlobal();
        }

        @Override
        public <T> T unwrap(Class<T> type) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> type) {
            return false;
        }
    }

    /** Node {@code node}, refusing several writers as an engine does by default. */
    private EngineConfig on(int node) {
        return EngineConfig.from(TestDatabases.sameDatabaseOn(TestDatabases.galera(node), own)).severalGaleraWriters(false).build();
    }

    private MariaDbDataSource dataSource(int node) throws SQLException {
        EngineConfig config = on(node);
        MariaDbDataSource dataSource = new MariaDbDataSource(Galera.withCausalReads(config.jdbcUrl()));
        dataSource.setUser(config.username());
        dataSource.setPassword(config.password());
        return dataSource;
    }

    /** Node {@code node} as the engine names it: "node2 (host:3308)". */
    private String node(int node) throws SQLException {
        return query(node, "SELECT CONCAT(@@wsrep_node_name, ' (', @@hostname, ':', @@port, ')')").get(0);
    }

    /** "engine node" of every record, read on node 1 after it applied what the cluster committed. */
    private List<String> records() throws SQLException {
        return query(1, "SELECT CONCAT(engine_id, ' ', node_name) FROM ts_writer_node");
    }

    private List<String> query(int node, String sql) throws SQLException {
        try (Connection c = connect(node); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            List<String> rows = new ArrayList<>();
            while (rs.next()) {
                rows.add(rs.getString(1));
            }
            return rows;
        }
    }

    private void execute(int node, String sql) throws SQLException {
        try (Connection c = connect(node); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private Connection connect(int node) throws SQLException {
        EngineConfig config = on(node);
        return DriverManager.getConnection(Galera.withCausalReads(config.jdbcUrl()), config.username(), config.password());
    }
}
