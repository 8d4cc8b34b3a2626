package dev.turnstile.engine.db;

import dev.turnstile.api.EngineConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lease rule said once and rendered twice: for expiries just before, at and just after a
 * moment (and none), the SQL {@link Expiry} builds and its Java check give the same verdict on each
 * database, an expiry stored in a column and one computed as FileNet's DateLastModified +
 * LockTimeout alike. At the expiry itself a lease is still held.
 */
abstract class AbstractExpiryContractTest {
    private static final Instant NOW = Instant.parse("2026-12-31T23:59:59.500Z");
    private static final Instant[] EXPIRIES = {NOW.minusNanos(1_000), NOW, NOW.plusNanos(1_000), null};

    protected abstract EngineConfig config();

    private Connection c;
    private String table;
    private String product;

    @BeforeEach
    void createTable() throws Exception {
        EngineConfig config = config();
        c = DriverManager.getConnection(config.jdbcUrl(), config.username(), config.password());
        product = c.getMetaData().getDatabaseProductName();
        table = "ts_test_expiry_" + UUID.randomUUID().toString().substring(0, 8);
        String time = Sql.isMariaDb(product) ? "datetime(6)" : "timestamp(6) with time zone";
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (id integer NOT NULL PRIMARY KEY, expires_at " + time + ", start_at " + time
                    + ", seconds integer)");
        }
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + table + " VALUES (?, ?, ?, ?)")) {
            for (int i = 0; i < EXPIRIES.length; i++) {
                insert.setInt(1, i);
                insert.setObject(2, EXPIRIES[i] == null ? null : bound(EXPIRIES[i]));
                int seconds = 30 + i;
                insert.setObject(3, EXPIRIES[i] == null ? null : bound(EXPIRIES[i].minusSeconds(seconds)));
                insert.setObject(4, seconds);
                insert.executeUpdate();
            }
        }
    }

    @AfterEach
    void dropTable() throws Exception {
        try (Statement s = c.createStatement()) {
            s.execute("DROP TABLE " + table);
        }
        c.close();
    }

    @Test
    void anExpiryInAColumn_isJudgedAlikeBySqlAndJava_andHeldAtItsOwnInstant() throws Exception {
        assertVerdictsAgree(Expiry.in("expires_at"));
    }

    @Test
    void anExpiryComputedFromAStartAndSeconds_isJudgedAlikeBySqlAndJava() throws Exception {
        assertVerdictsAgree(Expiry.secondsAfter("start_at", "seconds", product));
    }

    private void assertVerdictsAgree(Expiry expiry) throws Exception {
        List<String> sql = new ArrayList<>();
        List<String> java = new ArrayList<>();
        try (PreparedStatement q = c.prepareStatement("SELECT id, CASE WHEN " + expiry.heldAt("?") + " THEN 'held' ELSE '-' END,"
                + " CASE WHEN " + expiry.lapsedAt("?") + " THEN 'lapsed' ELSE '-' END FROM " + table + " ORDER BY id")) {
            q.setObject(1, bound(NOW));
            q.setObject(2, bound(NOW));
            try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    sql.add(rs.getInt(1) + " " + rs.getString(2) + " " + rs.getString(3));
                }
            }
        }
        for (int i = 0; i < EXPIRIES.length; i++) {
            java.add(i + " " + (Expiry.isHeld(EXPIRIES[i], NOW) ? "held" : "-") + " "
                    + (Expiry.isLapsed(EXPIRIES[i], NOW) ? "lapsed" : "-"));
        }
        assertThat(sql).as("SQL (%s) on %s", expiry, product).isEqualTo(java)
                .containsExactly("0 - lapsed", "1 held -", "2 held -", "3 - -");
    }

    /** An instant as the engine binds it: with its offset, or as UTC wall time in MariaDB's DATETIME. */
    private Object bound(Instant instant) {
        return Sql.isMariaDb(product) ? LocalDateTime.ofInstant(instant, ZoneOffset.UTC) : instant.atOffset(ZoneOffset.UTC);
    }
}
