package dev.turnstile.engine.db;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.changes.ChangesConfig;
import dev.turnstile.api.dispenser.RegisterReport;
import dev.turnstile.engine.LogCapture;
import dev.turnstile.engine.TestDatabases;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The schema comes from the migrations: a new database gets version 1, a database made by release
 * 0.1 (restored from a dump of one, test resources {@code release-0.1/}) is baselined at 1 and keeps
 * its numbers, and both end with the same tables, columns and indexes.
 */
class MigrationsTest {
    private static final String SUFFIX = UUID.randomUUID().toString().substring(0, 8);
    private static final List<String> CREATED = new ArrayList<>();

    private static EngineConfig newDatabase(String vendor, String purpose) throws SQLException {
        String name = "ts_mig_" + purpose + "_" + SUFFIX;
        if (vendor.equals("h2")) {
            return TestDatabases.h2(name);
        }
        EngineConfig server = vendor.equals("postgresql") ? TestDatabases.postgres() : TestDatabases.mariadb();
        CREATED.add(vendor + ":" + name);
        return TestDatabases.newDatabase(server, name);
    }

    @AfterAll
    static void dropDatabases() throws SQLException {
        for (String created : CREATED) {
            String[] v = created.split(":");
            TestDatabases.dropDatabase(v[0].equals("postgresql") ? TestDatabases.postgres() : TestDatabases.mariadb(), v[1]);
        }
    }

    /** Runs a dump file statement by statement (each ends with ";" at the end of a line). */
    private static void restore(EngineConfig config, String vendor) throws SQLException, IOException {
        String dump;
        try (InputStream in = MigrationsTest.class.getResourceAsStream("/release-0.1/" + vendor + ".sql")) {
            dump = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        try (Connection c = connect(config); Statement s = c.createStatement()) {
            for (String sql : dump.split(";[ \\t]*\\r?\\n")) {
                String body = sql.lines().filter(l -> !l.startsWith("--")).reduce("", (a, b) -> a + b + "\n").strip();
                if (!body.isEmpty()) {
                    s.execute(body);
                }
            }
        }
    }

    private static Connection connect(EngineConfig config) throws SQLException {
        return DriverManager.getConnection(config.jdbcUrl(), config.username(), config.password());
    }

    /** Every Turnstile table's columns (name, JDBC type, size, nullability) and index names, as the database reports them. */
    private static TreeSet<String> shape(EngineConfig config) throws SQLException {
        TreeSet<String> shape = new TreeSet<>();
        try (Connection c = connect(config)) {
            DatabaseMetaData meta = c.getMetaData();
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = meta.getTables(c.getCatalog(), c.getSchema(), "%", new String[]{"TABLE"})) {
                while (rs.next()) {
                    String t = rs.getString("TABLE_NAME").toLowerCase(Locale.ROOT);
                    if (t.startsWith("ts_") && !t.equals(Migrations.HISTORY_TABLE)) {
                        tables.add(rs.getString("TABLE_NAME"));
                    }
                }
            }
            for (String t : tables) {
                try (ResultSet rs = meta.getColumns(c.getCatalog(), c.getSchema(), t, "%")) {
                    while (rs.next()) {
                        shape.add((t + "." + rs.getString("COLUMN_NAME")).toLowerCase(Locale.ROOT) + " " + rs.getString("TYPE_NAME")
                                + "(" + rs.getInt("COLUMN_SIZE") + ") " + rs.getString("IS_NULLABLE") + " " + rs.getString("IS_AUTOINCREMENT"));
                    }
                }
                try (ResultSet rs = meta.getIndexInfo(c.getCatalog(), c.getSchema(), t, false, false)) {
                    while (rs.next()) {
                        String index = rs.getString("INDEX_NAME");
                        // Primary keys' and H2's generated constraint names differ by how they were made; their columns do not.
                        if (index != null && !index.toLowerCase(Locale.ROOT).startsWith("primary") && !index.toLowerCase(Locale.ROOT).endsWith("_pkey")
                                && !index.startsWith("PRIMARY_KEY")) {
                            shape.add((t + " index " + index + " on " + rs.getString("COLUMN_NAME") + (rs.getBoolean("NON_UNIQUE") ? "" : " unique"))
                                    .toLowerCase(Locale.ROOT));
                        }
                    }
                }
            }
        }
        return shape;
    }

    private static List<String> history(EngineConfig config) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = connect(config); Statement s = c.createStatement()) {
            // Flyway quotes the names it makes (on H2 they stay lower case)
            String q = c.getMetaData().getIdentifierQuoteString();
            try (ResultSet rs = s.executeQuery("SELECT " + q + "version" + q + ", " + q + "type" + q + ", " + q + "success" + q
                    + " FROM " + q + Migrations.HISTORY_TABLE + q + " ORDER BY " + q + "installed_rank" + q)) {
                while (rs.next()) {
                    if (rs.getString(1) != null) { // not one of Flyway's own markers (H2: "TABLE")
                        rows.add(rs.getString(1) + " " + rs.getString(2) + " " + rs.getBoolean(3));
                    }
                }
            }
        }
        return rows;
    }

    /** Lines at WARN or ERROR from any logger, and Flyway's at INFO. */
    private static List<String> loud(LogCapture all) {
        return all.lines().stream().filter(l -> l.startsWith("WARN ") || l.startsWith("ERROR ")).toList();
    }

    private void releaseZeroOneDatabase_isBaselined_keepsItsNumbers_andEndsLikeANewOne(String vendor) throws Exception {
        EngineConfig old = newDatabase(vendor, "old");
        restore(old, vendor);
        EngineConfig fresh = newDatabase(vendor, "new");
        try (LogCapture all = new LogCapture(org.slf4j.Logger.ROOT_LOGGER_NAME)) {
            try (ContentEngine engine = ContentEngine.open(EngineConfig.from(old).changes(ChangesConfig.of(true)).build())) {
                assertThat(engine.session("wf").dispensers().get("legacy").nextFormatted()).isEqualTo("L-0004");
                RegisterReport report = engine.session("wf").dispensers().get("legacy").report();
                assertThat(report.first()).isEqualTo(1);
                assertThat(report.last()).isEqualTo(4);
                assertThat(report.isComplete()).isTrue();
            }
            try (ContentEngine ignored = ContentEngine.open(fresh)) {
                // a new database: version 1 runs
            }
            assertThat(loud(all)).isEmpty();
        }
        assertThat(history(old)).containsExactly("1 BASELINE true", "2 SQL true", "3 SQL true", "4 SQL true", "5 SQL true", "6 SQL true", "7 SQL true", "8 SQL true", "9 SQL true");
        assertThat(history(fresh)).containsExactly("1 SQL true", "2 SQL true", "3 SQL true", "4 SQL true", "5 SQL true", "6 SQL true", "7 SQL true", "8 SQL true", "9 SQL true");
        assertThat(shape(old)).isEqualTo(shape(fresh)).isNotEmpty();
    }

    @Test
    void releaseZeroOnePostgres_isBaselined_keepsItsNumbers_andEndsLikeANewOne() throws Exception {
        releaseZeroOneDatabase_isBaselined_keepsItsNumbers_andEndsLikeANewOne("postgresql");
    }

    @Test
    void releaseZeroOneMariaDb_isBaselined_keepsItsNumbers_andEndsLikeANewOne() throws Exception {
        releaseZeroOneDatabase_isBaselined_keepsItsNumbers_andEndsLikeANewOne("mariadb");
    }

    @Test
    void releaseZeroOneH2_isBaselined_keepsItsNumbers_andEndsLikeANewOne() throws Exception {
        releaseZeroOneDatabase_isBaselined_keepsItsNumbers_andEndsLikeANewOne("h2");
    }

    @Test
    void withoutMigrate_aDatabaseWithoutTheMigrations_isRefused_namingWhatToRun_andNothingIsMade() throws Exception {
        EngineConfig empty = newDatabase("postgresql", "nomig");
        assertThatThrownBy(() -> ContentEngine.open(EngineConfig.from(empty).migrate(false).build()))
                .isInstanceOf(EngineRuntimeException.class)
                .hasMessage("E_DATABASE_UNAVAILABLE: The Turnstile schema in " + empty.jdbcUrl() + " is at version none;"
                        + " this release needs 1, 2, 3, 4, 5, 6, 7, 8, 9 too: run the migrations in classpath:dev/turnstile/engine/db/migration/postgresql"
                        + " with table ts_schema_history, or let the engine run them (database.migrate: true)");
        assertThat(shape(empty)).isEmpty();
    }

    @Test
    void withoutMigrate_theHostsOwnFlyway_runsTheMigrations_andTheEngineOpens() throws Exception {
        EngineConfig host = newDatabase("mariadb", "host");
        Flyway.configure().dataSource(host.jdbcUrl(), host.username(), host.password())
                .table(Migrations.HISTORY_TABLE).locations(Migrations.location("MariaDB")).load().migrate();
        try (ContentEngine engine = ContentEngine.open(EngineConfig.from(host).migrate(false).build())) {
            engine.session("carol", java.util.Set.of("dispenser-admin")).dispensers()
                    .create("host-run", dev.turnstile.api.dispenser.DispenserConfig.builder().build());
            assertThat(engine.session("wf").dispensers().get("host-run").next(1).first()).isEqualTo(1);
        }
        assertThat(history(host)).containsExactly("1 SQL true", "2 SQL true", "3 SQL true", "4 SQL true", "5 SQL true", "6 SQL true", "7 SQL true", "8 SQL true", "9 SQL true");
    }

    /** Runs this release's migrations on {@code config}'s database up to version {@code target}, as an older release left it. */
    private static void migrateTo(EngineConfig config, String vendor, String target) {
        Flyway.configure().dataSource(config.jdbcUrl(), config.username(), config.password()).table(Migrations.HISTORY_TABLE)
                .locations(Migrations.location(product(vendor))).target(target).load().migrate();
    }

    /** Version 2: a tree lock's holder is the session's user, up to 128 characters (64 before). */
    private void versionOneDatabase_isMigratedToTwo_andHoldsTreeLocksOfTheLongestUser(String vendor) throws Exception {
        EngineConfig v1 = newDatabase(vendor, "v1");
        migrateTo(v1, vendor, "1");
        String longest = "u".repeat(128);
        try (ContentEngine engine = ContentEngine.open(v1)) {
            var node = dev.turnstile.api.treelock.TreePath.parse("site:S/workshop:A");
            try (var held = engine.session(longest).treeLocks()
                    .tryLock(dev.turnstile.api.treelock.TreeLockRequest.exclusive(node)).orElseThrow()) {
                assertThat(engine.treeLocks().status(node)).extracting(dev.turnstile.api.treelock.TreeLockInfo::holder)
                        .containsExactly(longest);
            }
        }
        assertThat(history(v1)).containsExactly("1 SQL true", "2 SQL true", "3 SQL true", "4 SQL true", "5 SQL true", "6 SQL true", "7 SQL true", "8 SQL true", "9 SQL true");
    }

    /**
     * Version 6: a request key is its sender's. A key recorded before keeps its block for the user
     * the register names as issued its first number (a repeat by that user within the retention
     * still gets it), and is another user's new request.
     */
    private void versionFiveDatabase_keepsItsRequestKeys_forTheirSenders(String vendor) throws Exception {
        EngineConfig v5 = newDatabase(vendor, "v5");
        migrateTo(v5, vendor, "5");
        // What release 0.5 wrote for wf's key: a request row keyed (dispenser, key), and the register's row.
        String now = vendor.equals("mariadb") ? "UTC_TIMESTAMP(6)" : "CURRENT_TIMESTAMP";
        try (Connection c = connect(v5); Statement s = c.createStatement()) {
            s.execute("INSERT INTO ts_dispenser_request (dispenser, request_key, number_count, expires_at, first_number, issued_on, period)"
                    + " VALUES ('keys', 'wf-1', 1, " + now + " + INTERVAL '1' HOUR, 100, CURRENT_DATE, '')");
            s.execute("INSERT INTO ts_dispenser_issue (dispenser, number, period, issued_at, issued_by) VALUES ('keys', 100, '', "
                    + now + ", 'wf')");
        }
        try (ContentEngine engine = ContentEngine.open(v5)) {
            engine.session("carol", java.util.Set.of("dispenser-admin")).dispensers().create("keys",
                    dev.turnstile.api.dispenser.DispenserConfig.builder().register(true).build());
            var asWf = engine.session("wf").dispensers().get("keys");
            assertThat(asWf.next(1, "wf-1").first()).as("its sender's repeat: the block recorded before").isEqualTo(100);
            var asOther = engine.session("other").dispensers().get("keys");
            assertThat(asOther.next(1, "wf-1").first()).as("another user's same key: a new request").isEqualTo(1);
        }
        assertThat(history(v5)).containsExactly("1 SQL true", "2 SQL true", "3 SQL true", "4 SQL true", "5 SQL true", "6 SQL true", "7 SQL true", "8 SQL true", "9 SQL true");
    }

    @Test
    void versionFivePostgres_keepsItsRequestKeys_forTheirSenders() throws Exception {
        versionFiveDatabase_keepsItsRequestKeys_forTheirSenders("postgresql");
    }

    @Test
    void versionFiveMariaDb_keepsItsRequestKeys_forTheirSenders() throws Exception {
        versionFiveDatabase_keepsItsRequestKeys_forTheirSenders("mariadb");
    }

    @Test
    void versionFiveH2_keepsItsRequestKeys_forTheirSenders() throws Exception {
        versionFiveDatabase_keepsItsRequestKeys_forTheirSenders("h2");
    }

    /**
     * Version 3 spreads the marks of sites and workshops over stripes, version 4 over more of them: a
     * tree lock an older release marked would be released on rows it is not on, and its workshop's IX would stay on the site for
     * good. So a live one refuses the migration (an engine of that release may still run), and once
     * it has lapsed, the migration clears what it left.
     */
    private void versionThreeDatabase_withAnOlderReleasesLiveTreeLock_isRefused_andMigratedOnceItLapsed(String vendor)
            throws Exception {
        EngineConfig v2 = newDatabase(vendor, "v2");
        migrateTo(v2, vendor, "3");
        String now = vendor.equals("mariadb") ? "UTC_TIMESTAMP(6)" : "CURRENT_TIMESTAMP";
        try (Connection c = connect(v2); Statement s = c.createStatement()) {
            // What release 0.2 wrote for X on site:S/workshop:A: the lease, X on the workshop's row, IX on the site's.
            s.execute("INSERT INTO ts_tree_lease (lease_id, acquired_at, expires_at, lease_nodes, owner_info, usn) VALUES"
                    + " ('" + UUID.randomUUID() + "', " + now + ", " + now + " + INTERVAL '1' HOUR, 'X site:S/workshop:A', 'old', 0)");
            s.execute("INSERT INTO ts_tree_node (node_path, usn, is_count, ix_count, s_count, six_count, x_count) VALUES"
                    + " ('site:S', 1, 0, 1, 0, 0, 0), ('site:S/workshop:A', 1, 0, 0, 0, 0, 1)");
        }

        assertThatThrownBy(() -> ContentEngine.open(v2).close())
                .isInstanceOf(EngineRuntimeException.class)
                .hasMessageContaining("is at version 3 and 1 tree lock(s) taken by an older release are live (the last lapses at ")
                .hasMessageContaining("schema version 4 records tree locks differently: stop every engine of the older release,"
                        + " then open this one after that time");
        assertThat(history(v2)).as("nothing migrated").containsExactly("1 SQL true", "2 SQL true", "3 SQL true");

        try (Connection c = connect(v2); Statement s = c.createStatement()) {
            s.execute("UPDATE ts_tree_lease SET expires_at = " + now + " - INTERVAL '1' HOUR"); // lapsed: its engine is gone
        }
        try (ContentEngine engine = ContentEngine.open(v2)) {
            var site = dev.turnstile.api.treelock.TreePath.parse("site:S");
            assertThat(engine.session("new").treeLocks().tryLock(dev.turnstile.api.treelock.TreeLockRequest.exclusive(site)))
                    .as("the whole site, once what the old lock left is gone").hasValueSatisfying(h -> h.close());
        }
        assertThat(history(v2)).containsExactly("1 SQL true", "2 SQL true", "3 SQL true", "4 SQL true", "5 SQL true", "6 SQL true", "7 SQL true", "8 SQL true", "9 SQL true");
    }

    @Test
    void versionThreePostgres_withAnOlderReleasesLiveTreeLock_isRefused_andMigratedOnceItLapsed() throws Exception {
        versionThreeDatabase_withAnOlderReleasesLiveTreeLock_isRefused_andMigratedOnceItLapsed("postgresql");
    }

    @Test
    void versionThreeMariaDb_withAnOlderReleasesLiveTreeLock_isRefused_andMigratedOnceItLapsed() throws Exception {
        versionThreeDatabase_withAnOlderReleasesLiveTreeLock_isRefused_andMigratedOnceItLapsed("mariadb");
    }

    @Test
    void versionThreeH2_withAnOlderReleasesLiveTreeLock_isRefused_andMigratedOnceItLapsed() throws Exception {
        versionThreeDatabase_withAnOlderReleasesLiveTreeLock_isRefused_andMigratedOnceItLapsed("h2");
    }

    private static String product(String vendor) {
        return switch (vendor) {
            case "postgresql" -> "PostgreSQL";
            case "mariadb" -> "MariaDB";
            default -> "H2";
        };
    }

    @Test
    void versionOnePostgres_isMigratedToTwo_andHoldsTreeLocksOfTheLongestUser() throws Exception {
        versionOneDatabase_isMigratedToTwo_andHoldsTreeLocksOfTheLongestUser("postgresql");
    }

    @Test
    void versionOneMariaDb_isMigratedToTwo_andHoldsTreeLocksOfTheLongestUser() throws Exception {
        versionOneDatabase_isMigratedToTwo_andHoldsTreeLocksOfTheLongestUser("mariadb");
    }

    @Test
    void versionOneH2_isMigratedToTwo_andHoldsTreeLocksOfTheLongestUser() throws Exception {
        versionOneDatabase_isMigratedToTwo_andHoldsTreeLocksOfTheLongestUser("h2");
    }
}
