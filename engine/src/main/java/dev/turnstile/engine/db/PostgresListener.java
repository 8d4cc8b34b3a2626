package dev.turnstile.engine.db;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The thread that holds one connection LISTENing on the channels of {@link Notifications} and
 * hands each note to them (pgjdbc's {@code getNotifications(timeout)}). A broken connection is
 * made again after a pause; the listeners then hear that they may have missed notes. Apart from
 * {@link Notifications} so that the PostgreSQL driver, an optional dependency, is loaded only on
 * PostgreSQL.
 */
final class PostgresListener {
    private static final Logger log = LoggerFactory.getLogger(PostgresListener.class);
    /** How long one wait for notes lasts. */
    private static final int WAIT_MILLIS = 500;
    private static final long RECONNECT_PAUSE_MILLIS = 1000;

    private final Notifications notifications;
    private final Notifications.ConnectionSource source;
    private final Thread thread;
    private volatile Connection connection;

    PostgresListener(Notifications notifications, Notifications.ConnectionSource source) {
        this.notifications = notifications;
        this.source = source;
        this.thread = new Thread(this::run, "turnstile-notifications");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    void stop() {
        thread.interrupt();
        Connection c = connection;
        if (c != null) {
            try {
                c.close(); // ends a wait for notes at once rather than at its timeout
            } catch (SQLException ignored) {
                // closing anyway
            }
        }
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        try {
            while (!notifications.isClosed()) {
                try {
                    if (connection == null) {
                        connection = source.open();
                        connection.setAutoCommit(true);
                        listen();
                        notifications.deliverEverything(); // notes sent while we were not listening are lost
                    }
                    PGNotification[] notes = connection.unwrap(PGConnection.class).getNotifications(WAIT_MILLIS);
                    if (notes != null) {
                        for (PGNotification n : notes) {
                            notifications.deliver(n.getName(), n.getParameter(), n.getPID());
                        }
                    }
                } catch (SQLException e) {
                    if (notifications.isClosed()) {
                        break;
                    }
                    log.debug("The notification connection failed; making it again in {} ms", RECONNECT_PAUSE_MILLIS, e);
                    closeConnection();
                    Thread.sleep(RECONNECT_PAUSE_MILLIS);
                }
            }
        } catch (InterruptedException e) {
            // closed
        } finally {
            closeConnection();
        }
    }

    /** The server process behind {@code connection} (a pooled one: its PostgreSQL connection's). */
    static int backendPid(Connection connection) throws SQLException {
        return connection.unwrap(PGConnection.class).getBackendPID();
    }

    private void listen() throws SQLException {
        try (Statement s = connection.createStatement()) {
            for (String channel : notifications.channels()) {
                s.execute("LISTEN " + channel); // channel names are the engine's own identifiers
            }
        }
    }

    private void closeConnection() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // broken already
            }
            connection = null;
        }
    }
}
