package dev.turnstile.engine.host;

import com.zaxxer.hikari.HikariConfig;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The host application of the host-transaction tests, as a host runs its transactions: its pool
 * (on H2 at REPEATABLE READ, which the engine requires there) and one order — a number from
 * Turnstile and the host's own row, committed or rolled back — run again, whole, when the database
 * aborted it for a conflicting transaction, as the engine's refusal tells the host to.
 */
final class HostOrders {
    /** A host's transaction runs again at most this often: a conflict means another one committed. */
    private static final int ATTEMPTS = 1_000;

    private HostOrders() {
    }

    interface Numbering {
        long number(Connection hostConnection) throws SQLException;
    }

    /** The host's pool on {@code url}: H2's connections at REPEATABLE READ. */
    static HikariConfig pool(String url, String user, String password, int size) {
        HikariConfig pool = new HikariConfig();
        pool.setJdbcUrl(url);
        pool.setUsername(user);
        pool.setPassword(password);
        pool.setMaximumPoolSize(size);
        if (url.startsWith("jdbc:h2:")) {
            pool.setTransactionIsolation("TRANSACTION_REPEATABLE_READ");
        }
        return pool;
    }

    /** One order in {@code table}, numbered by {@code numbering}: the number, committed if {@code commit}. */
    static long order(DataSource pool, String table, String dispenser, boolean commit, Numbering numbering) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try (Connection c = pool.getConnection()) {
                c.setAutoCommit(false);
                try {
                    long number = numbering.number(c);
                    try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + table + " (number, dispenser) VALUES (?, ?)")) {
                        insert.setLong(1, number);
                        insert.setString(2, dispenser);
                        insert.executeUpdate();
                    }
                    if (commit) {
                        c.commit();
                    } else {
                        c.rollback();
                    }
                    return number;
                } catch (SQLException | RuntimeException e) {
                    c.rollback();
                    if (!isConflict(e) || attempt == ATTEMPTS) {
                        throw e;
                    }
                }
            }
        }
    }

    /** Whether the database aborted the transaction for a conflicting one: SQLState 40001 or 40P01 in the causes. */
    static boolean isConflict(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("40")) {
                return true;
            }
        }
        return false;
    }
}
