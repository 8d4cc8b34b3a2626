package dev.turnstile.engine.db;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;

/**
 * A host's DataSource on H2 as the engine's own transactions use it: each connection at REPEATABLE
 * READ while the engine has it ({@link EnginePool#isolation}: H2 loses updates at READ COMMITTED), and
 * at the isolation it came with again when the engine gives it back, so the host's pool gets its
 * connection as it lent it. Work that joins the host's transaction runs on the host's connection,
 * at the host's isolation.
 */
final class RepeatableReadConnections implements DataSource {
    private final DataSource host;

    RepeatableReadConnections(DataSource host) {
        this.host = host;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return repeatableRead(host.getConnection());
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        return repeatableRead(host.getConnection(user, password));
    }

    private static Connection repeatableRead(Connection lent) throws SQLException {
        int asLent = lent.getTransactionIsolation();
        if (asLent == Connection.TRANSACTION_REPEATABLE_READ) {
            return lent;
        }
        try {
            lent.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        } catch (SQLException | RuntimeException e) {
            lent.close();
            throw e;
        }
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("close") && method.getParameterCount() == 0) {
                        try {
                            if (!lent.isClosed()) {
                                lent.setTransactionIsolation(asLent);
                            }
                        } finally {
                            lent.close();
                        }
                        return null;
                    }
                    try {
                        return method.invoke(lent, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return host.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        host.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        host.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return host.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return host.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        return type.isInstance(this) ? type.cast(this) : host.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return type.isInstance(this) || host.isWrapperFor(type);
    }
}
