package dev.turnstile.engine.db;

import org.hibernate.StatelessSession;
import org.hibernate.exception.ConstraintViolationException;
import org.hibernate.exception.LockAcquisitionException;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;

/** SQL idioms the capabilities share, written once. */
public final class Sql {
    /** The escape character of {@link #likeLiteral}: write {@code LIKE :p ESCAPE '!'}. */
    public static final char LIKE_ESCAPE = '!';

    private Sql() {
    }

    /** {@code text} matched literally inside a LIKE pattern ({@code _} and {@code %} are legal in ids and paths). */
    public static String likeLiteral(String text) {
        return text.replace("!", "!!").replace("%", "!%").replace("_", "!_");
    }

    public static boolean isPostgres(String productName) {
        return productName.toLowerCase(java.util.Locale.ROOT).contains("postgres");
    }

    public static boolean isH2(String productName) {
        return "H2".equalsIgnoreCase(productName);
    }

    /** MariaDB, or MySQL (Galera nodes included): one dialect here. */
    public static boolean isMariaDb(String productName) {
        String p = productName.toLowerCase(java.util.Locale.ROOT);
        return p.contains("mariadb") || p.contains("mysql");
    }

    /**
     * True if a transaction failed only because a concurrent one won a race the database settled:
     * a duplicate first insert or a deadlock victim. Nothing was written; the attempt may go again.
     */
    public static boolean isRace(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof ConstraintViolationException || t instanceof LockAcquisitionException) {
                return true;
            }
        }
        return false;
    }

    /**
     * True if the database aborted the transaction for a conflicting one, so that it committed
     * nothing and may run again: a deadlock victim, a serialization failure, and on Galera a
     * certification conflict at commit or a brute-force abort by a replicated write (SQLSTATE
     * 40001, MariaDB error 1213; PostgreSQL's deadlock 40P01). Looks through the whole cause chain,
     * since a failure at commit reaches the engine wrapped by Hibernate and Jakarta Persistence.
     */
    public static boolean isConflictAbort(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql && ("40001".equals(sql.getSQLState())
                    || "40P01".equals(sql.getSQLState()) || sql.getErrorCode() == 1213)) {
                return true;
            }
        }
        return false;
    }

    /**
     * True if a statement gave up waiting, or was cancelled: a lock wait timeout (PostgreSQL 55P03,
     * MariaDB 1205, H2 50200) or a statement cancelled for its time (57014; MariaDB 1969) — in the
     * host's transaction, its timeout or the database's lock wait limit, not an outage.
     */
    public static boolean isTimedOut(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql && ("55P03".equals(sql.getSQLState()) || "57014".equals(sql.getSQLState())
                    || sql.getErrorCode() == 1205 || sql.getErrorCode() == 1969 || sql.getErrorCode() == 50200)) {
                return true;
            }
        }
        return false;
    }

    /**
     * True if the failure is the connection's, not the work's: the server went away, restarted or
     * does not accept connections yet (SQLSTATE class 08; PostgreSQL's shutdowns and start-up,
     * 57P01 to 57P03; H2's broken connections, {@link BrokenH2Connections}; a pool that found no live
     * connection in its time) — what a failover or a restart looks like, and waiting outlives. Not a refusal that waiting does not change: a wrong
     * password (28…), a database that does not exist, a host name that does not resolve.
     */
    public static boolean isConnectionLost(Throwable failure) {
        boolean lost = false;
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof java.net.UnknownHostException) {
                return false;
            }
            String state = t instanceof SQLException sql ? sql.getSQLState() : null;
            lost |= t instanceof java.sql.SQLTransientConnectionException || t instanceof java.net.ConnectException
                    || t instanceof java.io.EOFException || state != null && (state.startsWith("08")
                    || state.equals("57P01") || state.equals("57P02") || state.equals("57P03")
                    || BrokenH2Connections.DEAD.contains(state));
        }
        return lost;
    }

    /**
     * True if the database refused a write because the transaction is read-only (SQLSTATE 25006:
     * PostgreSQL's read_only_sql_transaction, MariaDB's error 1792): the caller's mistake, not an outage.
     */
    public static boolean isReadOnlyRefusal(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql && ("25006".equals(sql.getSQLState()) || sql.getErrorCode() == 1792)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Inserts a row unless one with its key exists, inside the caller's transaction. Several
     * transactions may be first at once; the losers go on with the winner's row. PostgreSQL and
     * MariaDB skip the duplicate in the statement ({@code ON CONFLICT DO NOTHING}, {@code INSERT
     * IGNORE}), so the expected race logs no error in the server's log or the driver's; on H2 the
     * loser's insert is undone to a savepoint, and an insert that meets another open transaction's
     * insert of the key gives way after {@link #H2_INSERT_WAIT_MILLIS} as a conflict abort.
     */
    public static void insertIfAbsent(StatelessSession session, String insertSql, Object... parameters) {
        session.doWork(connection -> {
            String product = connection.getMetaData().getDatabaseProductName();
            String sql = isPostgres(product) ? insertSql + " ON CONFLICT DO NOTHING"
                    : isMariaDb(product) ? insertSql.replaceFirst("^INSERT ", "INSERT IGNORE ")
                    : null;
            if (sql != null) {
                execute(connection, sql, parameters);
                return;
            }
            int lockTimeout = h2LockTimeout(connection);
            execute(connection, "SET LOCK_TIMEOUT " + H2_INSERT_WAIT_MILLIS);
            Savepoint savepoint = connection.setSavepoint();
            try {
                execute(connection, insertSql, parameters);
                connection.releaseSavepoint(savepoint);
            } catch (SQLException e) {
                if (H2_LOCK_TIMEOUT.equals(e.getSQLState())) {
                    throw new SQLException("Gave way to another transaction that inserted the same key and is still open", "40001", e);
                }
                if (e.getSQLState() == null || !e.getSQLState().startsWith("23")) {
                    throw e;
                }
                connection.rollback(savepoint);
            } finally {
                execute(connection, "SET LOCK_TIMEOUT " + lockTimeout);
            }
        });
    }

    /**
     * How long an insert on H2 waits for another open transaction that inserted the same key. H2
     * runs such an insert again and again, busy, until the session's LOCK_TIMEOUT, outside its
     * deadlock detection: two transactions that each inserted a key the other then inserted waited
     * 10 s and failed (five first lockers of one tree node's stripes, in CI). Past this wait the
     * insert gives way as a conflict abort (40001), so that its transaction runs again
     * ({@link Database#inTransaction}) once the other has committed or rolled back.
     */
    static final int H2_INSERT_WAIT_MILLIS = 50;
    private static final String H2_LOCK_TIMEOUT = "HYT00";

    private static int h2LockTimeout(Connection connection) throws SQLException {
        try (var statement = connection.createStatement(); var rs = statement.executeQuery("SELECT LOCK_TIMEOUT()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static void execute(Connection connection, String sql, Object... parameters) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                insert.setObject(i + 1, parameters[i]);
            }
            insert.executeUpdate();
        }
    }
}
