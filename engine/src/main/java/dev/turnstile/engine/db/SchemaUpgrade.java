package dev.turnstile.engine.db;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Brings a database made by release 0.1 (Hibernate's schema update, no migration history) to that
 * release's last state, before {@link Migrations} baselines it at version 1: early builds made
 * update sequence numbers 32-bit integers, which a dispenser saving 1,000 times a second wraps in
 * 25 days. Each step checks before it changes, so several processes may run it at once.
 */
final class SchemaUpgrade {
    private SchemaUpgrade() {
    }

    static void run(DataSource dataSource, String productName) {
        try (Connection c = dataSource.getConnection()) {
            widenToBigint(c, productName, "ts_object", "usn", false);
            widenToBigint(c, productName, "ts_change", "usn_before", true);
            widenToBigint(c, productName, "ts_change", "usn_after", true);
            if (!c.getAutoCommit()) {
                c.commit();
            }
        } catch (SQLException e) {
            throw EngineRuntimeException.of(ExceptionCode.E_DATABASE_UNAVAILABLE,
                    "Cannot upgrade the Turnstile schema: " + e.getMessage(), e);
        }
    }

    /**
     * MariaDB's default collations compare ignoring case, accents and trailing spaces, so two
     * feed clients {@code x-case} and {@code x-CASE} were one row and tree nodes {@code CaseA} and
     * {@code casea} one node. Every Turnstile table is converted to {@code utf8mb4_nopad_bin}
     * (exact, code point by code point, trailing spaces significant) where release 0.1 left it otherwise;
     * PostgreSQL and H2 compare exactly already.
     */
    static void exactKeys(DataSource dataSource, String productName) {
        if (!Sql.isMariaDb(productName)) {
            return;
        }
        try (Connection c = dataSource.getConnection()) {
            List<String> tables = new ArrayList<>();
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT TABLE_NAME FROM information_schema.TABLES"
                    + " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'ts\\_%' AND TABLE_COLLATION <> '" + EXACT_COLLATION + "'")) {
                while (rs.next()) {
                    tables.add(rs.getString(1));
                }
            }
            for (String table : tables) {
                try (Statement s = c.createStatement()) {
                    s.execute("ALTER TABLE " + table + " CONVERT TO CHARACTER SET utf8mb4 COLLATE " + EXACT_COLLATION);
                }
            }
            if (!c.getAutoCommit()) {
                c.commit();
            }
        } catch (SQLException e) {
            throw EngineRuntimeException.of(ExceptionCode.E_DATABASE_UNAVAILABLE,
                    "Cannot make the Turnstile tables compare keys exactly: " + e.getMessage(), e);
        }
    }

    static final String EXACT_COLLATION = "utf8mb4_nopad_bin";

    private static void widenToBigint(Connection c, String productName, String table, String column, boolean nullable)
            throws SQLException {
        if (!isInteger(c, table, column)) {
            return;
        }
        String sql = Sql.isPostgres(productName) ? "ALTER TABLE " + table + " ALTER COLUMN " + column + " TYPE BIGINT"
                : Sql.isMariaDb(productName)
                ? "ALTER TABLE " + table + " MODIFY " + column + " BIGINT" + (nullable ? " NULL" : " NOT NULL")
                : "ALTER TABLE " + table + " ALTER COLUMN " + column + " SET DATA TYPE BIGINT";
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static boolean isInteger(Connection c, String table, String column) throws SQLException {
        DatabaseMetaData meta = c.getMetaData();
        String t = meta.storesUpperCaseIdentifiers() ? table.toUpperCase(Locale.ROOT) : table;
        String col = meta.storesUpperCaseIdentifiers() ? column.toUpperCase(Locale.ROOT) : column;
        try (ResultSet rs = meta.getColumns(c.getCatalog(), c.getSchema(), t, col)) {
            while (rs.next()) {
                if (rs.getInt("DATA_TYPE") == Types.INTEGER) {
                    return true;
                }
            }
        }
        return false;
    }
}
