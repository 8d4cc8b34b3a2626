package dev.turnstile.engine.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A TCP proxy in front of a real PostgreSQL or MariaDB server that can lose the answer to a
 * commit: the server commits, and the client hears nothing but a broken connection. That is the
 * worst moment for a node killed or a network cut — the outcome is unknown to the caller — and
 * the one a restart test hits only by luck. Armed with a piece of SQL, it cuts the first connection
 * that sends a {@code COMMIT} after a statement containing it, or such a statement that commits
 * by itself (autocommit): the commit goes through to the
 * server, its answer is dropped, every connection is broken, and new ones are refused until
 * {@link #restore()} — as if the database were gone. Or it loses the statement itself
 * ({@link #loseStatement}): never sent, so never committed — a primary lost with commits its
 * synchronous standby had not yet received, as a failover does.
 */
final class AnswerCuttingProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final boolean mariadb;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile String armedWith;
    private volatile String losing;
    private volatile boolean down;
    private final CountDownLatch cut = new CountDownLatch(1);

    /** A proxy on a free local port for the server of {@code jdbcUrl}. */
    AnswerCuttingProxy(String jdbcUrl) throws IOException {
        URI server = URI.create(jdbcUrl.substring("jdbc:".length()));
        this.targetHost = server.getHost();
        this.targetPort = server.getPort();
        this.mariadb = jdbcUrl.startsWith("jdbc:mariadb:");
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "answer-cutting-proxy");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** {@code jdbcUrl} pointed at this proxy instead of its server. */
    String url(String jdbcUrl) {
        return jdbcUrl.replaceFirst("//[^/]+/", "//127.0.0.1:" + listener.getLocalPort() + "/");
    }

    /** Cuts the answer to the next commit of a transaction that ran a statement containing {@code sql}. */
    void cutCommitAnswerAfter(String sql) {
        armedWith = sql;
    }

    /** Loses the next statement containing {@code sql}, and the database with it: the server never sees it. */
    void loseStatement(String sql) {
        losing = sql;
    }

    /** Waits until the armed cut (or loss) has happened; false if it has not within {@code timeout}. */
    boolean awaitCut(Duration timeout) throws InterruptedException {
        return cut.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The database reachable again: new connections go through. */
    void restore() {
        down = false;
    }

    @Override
    public void close() throws IOException {
        listener.close();
        open.forEach(this::reset);
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                if (down) {
                    reset(client);
                    continue;
                }
                Socket server;
                try {
                    server = new Socket(targetHost, targetPort);
                } catch (IOException unreachable) {
                    reset(client); // as the server itself would have answered
                    continue;
                }
                open.add(client);
                open.add(server);
                Connection c = new Connection(client, server);
                start(c::clientToServer, "proxy client->server");
                start(c::serverToClient, "proxy server->client");
            } catch (IOException e) {
                if (!listener.isClosed()) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    }

    private static void start(Runnable pump, String name) {
        Thread t = new Thread(pump, name);
        t.setDaemon(true);
        t.start();
    }

    /**
     * One client connection and its connection to the server. A commit is seen by its text where
     * the client sends it (MariaDB's COM_QUERY), or by the server's answer (PostgreSQL's
     * CommandComplete tag, since pgjdbc sends COMMIT as a statement it prepared once); a statement
     * run in autocommit by the answer that says no transaction is open after it.
     */
    private final class Connection {
        private final Socket client;
        private final Socket server;
        /** A statement of the armed kind went by in the open transaction. */
        private volatile boolean armedStatementSent;
        /** That transaction's COMMIT went to the server: its answer is the one to lose. */
        private volatile boolean commitSent;

        Connection(Socket client, Socket server) {
            this.client = client;
            this.server = server;
        }

        void clientToServer() {
            pump(client, server, (buffer, n) -> {
                String text = text(buffer, n);
                String lost = losing;
                if (lost != null && text.contains(lost)) {
                    losing = null;
                    takeTheDatabaseAway();
                    return false;
                }
                String armed = armedWith;
                if (armed != null && text.contains(armed)) {
                    armedStatementSent = true;
                } else if (armedStatementSent && text.contains("COMMIT")) {
                    commitSent = true;
                } else if (text.contains("ROLLBACK")) {
                    armedStatementSent = false;
                }
                return true;
            });
        }

        void serverToClient() {
            pump(server, client, (buffer, n) -> {
                String text = text(buffer, n);
                boolean committed = commitSent || text.contains("COMMIT")
                        || (mariadb ? okOutsideTransaction(buffer, n) : text.contains(READY_OUTSIDE_TRANSACTION));
                if (!armedStatementSent || !committed) {
                    if (text.contains("ROLLBACK")) {
                        armedStatementSent = false;
                    }
                    return true;
                }
                // The server has committed and answered: drop the answer and take the database away.
                armedWith = null;
                takeTheDatabaseAway();
                return false;
            });
        }
    }

    /** Every connection broken, new ones refused until {@link #restore()}. */
    private void takeTheDatabaseAway() {
        down = true;
        open.forEach(this::reset);
        cut.countDown();
    }

    /**
     * PostgreSQL's ReadyForQuery with no transaction open: after a statement run in autocommit (a
     * dispenser's take in one statement), the answer that says it committed.
     */
    private static final String READY_OUTSIDE_TRANSACTION = "Z\u0000\u0000\u0000\u0005I";

    /**
     * Whether the chunk is MariaDB's OK packet with no transaction open: the answer to a statement
     * run in autocommit, which says it committed (header 0x00, affected rows and insert id as
     * length-encoded integers, then the status flags: SERVER_STATUS_AUTOCOMMIT = 2 set,
     * SERVER_STATUS_IN_TRANS = 1 clear).
     */
    private static boolean okOutsideTransaction(byte[] buffer, int n) {
        int at = 4;
        if (n < at + 5 || buffer[at++] != 0) {
            return false;
        }
        for (int integer = 0; integer < 2; integer++) {
            int first = buffer[at] & 0xff;
            at += first < 0xfb ? 1 : first == 0xfc ? 3 : first == 0xfd ? 4 : 9;
        }
        return at + 2 <= n && (buffer[at] & 3) == 2;
    }

    private static String text(byte[] buffer, int n) {
        return new String(buffer, 0, n, StandardCharsets.ISO_8859_1);
    }

    private interface Chunk {
        /** Whether to forward the {@code n} bytes read. */
        boolean forward(byte[] buffer, int n);
    }

    private void pump(Socket from, Socket to, Chunk chunk) {
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                if (!chunk.forward(buffer, n)) {
                    return;
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // one side went away: the other goes too
        } finally {
            reset(from);
            reset(to);
        }
    }

    /** Closes a socket at once with a reset, as a dead peer's kernel would. */
    private void reset(Socket socket) {
        open.remove(socket);
        try {
            socket.setSoLinger(true, 0);
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }
}
