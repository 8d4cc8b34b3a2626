package dev.turnstile.spi;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Host transactions handed over explicitly: inside {@link #joining}, Turnstile's calls on this
 * thread run on the given connection, in the transaction the host has open on it.
 *
 * <pre>{@code
 * JdbcHostTransactions host = new JdbcHostTransactions();
 * ContentEngine engine = ContentEngine.open(EngineConfig.builder().dataSource(pool).hostTransactions(host).build());
 * try (Connection c = pool.getConnection()) {
 *     c.setAutoCommit(false);
 *     long number = host.joining(c, () -> invoices.next());   // joins the transaction on c
 *     insertOrder(c, number);
 *     c.commit();                                             // both, or (rollback) neither
 * }
 * }</pre>
 */
public final class JdbcHostTransactions implements HostTransactions {
    private final ThreadLocal<Connection> joined = new ThreadLocal<>();

    /**
     * Runs {@code work} with Turnstile joining the transaction open on {@code connection}, which must
     * not be in auto-commit mode. The host commits or rolls back afterwards; Turnstile never does.
     */
    public <T> T joining(Connection connection, Supplier<T> work) {
        try {
            if (connection == null || connection.isClosed() || connection.getAutoCommit()) {
                throw EngineRuntimeException.badArgument("host connection", connection == null ? null : "a connection in"
                        + " auto-commit mode or closed", "an open connection with auto-commit off, in the host's transaction");
            }
        } catch (SQLException e) {
            throw EngineRuntimeException.of(ExceptionCode.E_DATABASE_UNAVAILABLE, "Cannot read the host connection's state: "
                    + e.getMessage(), e);
        }
        Connection outer = joined.get();
        joined.set(connection);
        try {
            return work.get();
        } finally {
            if (outer == null) {
                joined.remove();
            } else {
                joined.set(outer);
            }
        }
    }

    @Override
    public Optional<Connection> current() {
        return Optional.ofNullable(joined.get());
    }
}
