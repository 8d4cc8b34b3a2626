package dev.turnstile.engine.db;

import org.h2.tools.Server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;

/**
 * The process that serves a shared H2 file: a JVM of its own, started by the first engine that
 * opens an {@code AUTO_SERVER} URL ({@link SharedH2File}) and owned by no application process. An
 * application process killed takes only its own open transactions with it; with H2's AUTO_SERVER
 * alone the first application process was the database, and when it was killed the commits it had
 * answered but not yet written were lost.
 *
 * <p>It serves engines on a TCP port of its own (loopback, only files that exist in the file's
 * folder), and opens the file with the URL's AUTO_SERVER, so that a host's own connections to the
 * same URL reach the file through it too. It exits by itself when no session but its own has been
 * open for {@link #IDLE}; on SIGTERM it stops taking connections, then writes the file and closes
 * it. SIGKILL loses no answered commit: it opens the file with {@code WRITE_DELAY=0} unless the URL
 * sets one ({@link SharedH2File#writtenBeforeAnswered}). Only the JDK and H2 are on its class path;
 * it logs to {@code <file>.server.log}.
 *
 * <p>Arguments: the file (absolute, without {@code .mv.db}); standard input: the URL to open, the
 * user and the password, one per line (not arguments: those are visible to every local user).
 */
public final class H2FileServer {
    static final Duration IDLE = Duration.ofSeconds(15);
    /** Exit status when another process already serves the file. */
    static final int SERVED_ELSEWHERE = 3;

    private H2FileServer() {
    }

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String url = in.readLine();
        String user = in.readLine();
        String password = in.readLine();
        Connection own = open(url, user, password == null ? "" : password);
        if (!(((org.h2.jdbc.JdbcConnection) own).getSession() instanceof org.h2.engine.SessionLocal)) {
            log(file + " is already served by another process");
            System.exit(SERVED_ELSEWHERE);
        }
        Server tcp = Server.createTcpServer("-tcpPort", "0", "-baseDir", file.getParent().toString(), "-ifExists").start();
        // On SIGTERM or SIGINT, in this order: no engine sent here any more, no connection taken,
        // the file written and closed. A shutdown hook runs in no known order with H2's own, which
        // closes the file, and the port could open it again for a connection the exit then cuts.
        for (String signal : new String[] {"TERM", "INT"}) {
            sun.misc.Signal.handle(new sun.misc.Signal(signal), s -> stop(file, tcp, own, "SIG" + signal));
        }
        SharedH2File.writeServerInfo(file, ProcessHandle.current(), tcp.getPort());
        // Read back now: that loads what stop() needs, while the class path is as it was at the
        // start (a build or an upgrade may rewrite it under a running server).
        SharedH2File.serving(file).orElseThrow();
        log("serving " + file + " as process " + ProcessHandle.current().pid() + " on port " + tcp.getPort());
        try {
            serve(file, tcp, own);
        } catch (Throwable e) {
            // Never a server left without its loop (H2's threads would keep the process and the file).
            stop(file, tcp, own, "failed: " + e);
        }
    }

    private static void serve(Path file, Server tcp, Connection own) throws Exception {
        Object opened = identity(file);
        try (FileChannel starting = SharedH2File.openStartLock(file)) {
            long idleSince = System.nanoTime();
            while (true) {
                Thread.sleep(250);
                if (!opened.equals(identity(file))) {
                    // Deleted (rm -rf of the data directory) or replaced: H2 would go on writing to
                    // the deleted file, and new engines would reach it through the lock file that
                    // H2 writes again — commits that vanish when this process ends. Nothing here
                    // is worth writing: gone, at once.
                    log(file + ".mv.db was deleted or replaced: stopping without writing");
                    Runtime.getRuntime().halt(4);
                }
                if (otherSessions(own) > 0) {
                    idleSince = System.nanoTime();
                } else if (System.nanoTime() - idleSince > IDLE.toNanos()) {
                    // Under the start lock, which an engine holds (shared) from checking that this
                    // process serves until its connection is open: none can be on its way in.
                    try (FileLock exclusive = starting.tryLock()) {
                        if (exclusive != null && otherSessions(own) == 0) {
                            stop(file, tcp, own, "idle for " + IDLE.toSeconds() + " s");
                        }
                    }
                }
            }
        }
    }

    private static synchronized void stop(Path file, Server tcp, Connection own, String why) {
        try {
            SharedH2File.deleteServerInfo(file, ProcessHandle.current()); // engines look for the next server
            tcp.stop();
            try (Statement s = own.createStatement()) {
                s.execute("SHUTDOWN");
            }
            log(why + ": stopped serving " + file);
        } catch (Throwable e) {
            log(why + ": stopping: " + e);
            Runtime.getRuntime().halt(5);
        }
        System.exit(0);
    }

    private static Connection open(String url, String user, String password) throws Exception {
        long started = System.nanoTime();
        while (true) {
            try {
                return DriverManager.getConnection(url, user, password);
            } catch (SQLException e) {
                // The file still held by a server that is stopping (it closes in milliseconds), or
                // the lock file of a killed one, which H2 takes over once it has aged (seconds).
                long waited = System.nanoTime() - started;
                boolean stopping = e.getErrorCode() == org.h2.api.ErrorCode.DATABASE_ALREADY_OPEN_1
                        && waited < Duration.ofSeconds(5).toNanos();
                boolean killed = String.valueOf(e.getMessage()).contains("Lock file recently modified")
                        && waited < Duration.ofSeconds(30).toNanos();
                if (stopping || killed) {
                    Thread.sleep(200);
                    continue;
                }
                log("cannot open " + url + ": " + e.getMessage());
                System.exit(2);
            }
        }
    }

    private static int otherSessions(Connection own) throws SQLException {
        try (Statement s = own.createStatement();
             ResultSet r = s.executeQuery("SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE SESSION_ID <> SESSION_ID()")) {
            r.next();
            return r.getInt(1);
        }
    }

    /** The data file's identity (device and inode on Linux), or "none" when it is gone. */
    private static Object identity(Path file) {
        try {
            Object key = Files.readAttributes(Path.of(file + ".mv.db"), BasicFileAttributes.class).fileKey();
            return key == null ? "unknown" : key;
        } catch (IOException gone) {
            return "none";
        }
    }

    private static void log(String line) {
        System.err.println(Instant.now() + " " + line);
    }
}
