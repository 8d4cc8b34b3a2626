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
     * Inserts a row unless one with its key exists, inside the caller's transaction. Several
     * transactions may be first at once; the losers go on with the winner's row. PostgreSQL and
     * MariaDB skip the duplicate in the statement ({@code ON CONFLICT DO NOTHING}, {@code INSERT
     * IGNORE}), so the expected race logs no error in the server's log or the driver's; on H2 the
     * loser's insert is undone to a savepoint.
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
            Savepoint savepoint = connection.setSavepoint();
            try {
                execute(connection, insertSql, parameters);
                connection.releaseSavepoint(savepoint);
            } catch (SQLException e) {
                if (e.getSQLState() == null || !e.getSQLState().startsWith("23")) {
                    throw e;
                }
                connection.rollback(savepoint);
            }
        });
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
