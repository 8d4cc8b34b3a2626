package dev.turnstile.engine.db;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.URISyntaxException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * The connections of an engine to an H2 file shared by processes ({@code AUTO_SERVER=TRUE}): each
 * goes over TCP to the {@link H2FileServer} process that serves the file, started here if none
 * does. An engine never opens the file itself, so that it never becomes the file's server: with
 * H2's AUTO_SERVER alone the first application process was, H2 writes a commit to the file up to
 * half a second after answering it, and when that process was killed the numbers it had just issued
 * to the others were issued again.
 *
 * <p>Two files beside the database: {@code <file>.server} names the serving process (pid, start
 * time — so that a reused pid is not taken for it — and port), and {@code <file>.server.lock},
 * locked exclusively while a server is started or stops for being idle, and shared while an engine
 * checks that one serves and connects to it.
 */
final class SharedH2File implements DataSource {
    private static final Duration START = Duration.ofSeconds(60);
    /** H2's codes for a server that is gone or going: connection broken, database closed, shutting down. */
    private static final Set<String> GONE = Set.of("90067", "90098", "90121");
    /** One start lock per file and JVM: the OS lock is the process's, threads need their own. */
    private static final Map<Path, Object> IN_THIS_JVM = new ConcurrentHashMap<>();

    private final String url;
    private final Path file;
    /** The URL's settings that a connection over TCP takes: all but how to open the file. */
    private final String sessionSettings;
    private final String user;
    private final String password;

    SharedH2File(String url, String user, String password) {
        this.url = url;
        this.file = fileOf(url).orElseThrow(() -> new IllegalArgumentException("not a shared H2 file: " + url));
        this.sessionSettings = Arrays.stream(url.split(";")).skip(1)
                .filter(s -> !s.toUpperCase(Locale.ROOT).matches("\\s*(AUTO_SERVER|AUTO_SERVER_PORT|FILE_LOCK|DB_CLOSE_ON_EXIT)\\s*=.*"))
                .map(s -> ";" + s).collect(Collectors.joining());
        this.user = user;
        this.password = password == null ? "" : password;
    }

    /** The file a {@code jdbc:h2:[file:]path;…AUTO_SERVER=TRUE…} URL names, absolute; empty for any other URL. */
    static Optional<Path> fileOf(String url) {
        if (!url.startsWith("jdbc:h2:")) {
            return Optional.empty();
        }
        String[] parts = url.substring("jdbc:h2:".length()).split(";");
        boolean autoServer = Arrays.stream(parts).skip(1).anyMatch(s -> s.replace(" ", "").equalsIgnoreCase("AUTO_SERVER=TRUE"));
        String path = parts[0].startsWith("file:") ? parts[0].substring("file:".length()) : parts[0];
        if (!autoServer || path.matches("^(mem|tcp|ssl|zip|split|nio[a-zA-Z]*|async|retry):.*")) {
            return Optional.empty();
        }
        if (path.startsWith("~")) {
            path = System.getProperty("user.home") + path.substring(1);
        }
        return Optional.of(Path.of(path).toAbsolutePath().normalize());
    }

    @Override
    public Connection getConnection() throws SQLException {
        return getConnection(user, password);
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        long deadline = System.nanoTime() + START.toNanos();
        synchronized (IN_THIS_JVM.computeIfAbsent(file, f -> new Object())) {
            while (true) {
                try (FileChannel starting = openStartLock(file)) {
                    FileLock shared = starting.lock(0, Long.MAX_VALUE, true);
                    Optional<Served> served = serving(file);
                    if (served.isEmpty()) {
                        shared.release();
                        try (FileLock exclusive = starting.lock()) {
                            served = serving(file);
                            if (served.isEmpty()) {
                                served = start();
                            }
                        }
                        starting.lock(0, Long.MAX_VALUE, true);
                    }
                    if (served.isEmpty()) {
                        // Served by a process that is not an H2FileServer (a host's own AUTO_SERVER
                        // connection opened it first): through it, as H2 would.
                        return DriverManager.getConnection(url, user, password);
                    }
                    try {
                        return DriverManager.getConnection("jdbc:h2:tcp://127.0.0.1:" + served.get().port() + "/"
                                + file.getFileName() + sessionSettings, user, password);
                    } catch (SQLException e) {
                        if (!GONE.contains(e.getSQLState()) || System.nanoTime() > deadline) {
                            throw e;
                        }
                        // a server stopping: it deletes its .server file before it stops taking
                        // connections, so the next try starts another
                    }
                } catch (IOException e) {
                    throw new SQLException("Cannot serve " + file + ": " + e, "08001", e);
                }
                pause(50);
            }
        }
    }

    /**
     * The URL the server opens the file with: {@code WRITE_DELAY=0} unless the URL sets it. H2
     * answers a commit before it writes it (up to 500 ms by default), so a killed server took the
     * last answered commits with it and their numbers were issued again (6 to 35 per workload in
     * {@code H2ServingProcessKilledTest}); written before answered, none. It had been ruled out for
     * the lost update H2 showed with it at READ COMMITTED, which the engine's REPEATABLE READ ends
     * ({@link EnginePool#isolation}).
     */
    static String writtenBeforeAnswered(String url) {
        return url.toUpperCase(Locale.ROOT).contains(";WRITE_DELAY=") ? url : url + ";WRITE_DELAY=0";
    }

    /** The server started and serving, or empty if a process that is not one serves the file. */
    private Optional<Served> start() throws SQLException, IOException {
        Path log = Path.of(file + ".server.log");
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dh2.bindAddress=" + System.getProperty("h2.bindAddress", "127.0.0.1"),
                "-cp", classPath(), H2FileServer.class.getName(), file.toString());
        Process server = new ProcessBuilder(command)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        try (OutputStream stdin = server.getOutputStream();
             PrintWriter w = new PrintWriter(stdin, true, StandardCharsets.UTF_8)) {
            w.println(writtenBeforeAnswered(url));
            w.println(user);
            w.println(password);
        }
        long deadline = System.nanoTime() + START.toNanos();
        while (true) {
            Optional<Served> served = serving(file).filter(s -> s.pid() == server.pid());
            if (served.isPresent()) {
                return served;
            }
            if (!server.isAlive()) {
                if (server.exitValue() == H2FileServer.SERVED_ELSEWHERE) {
                    return Optional.empty();
                }
                String why = lastLine(log);
                // H2's own error code where its server says one (90020: the file is held by another
                // process alone), which waiting does not change; else a connection that failed.
                Matcher code = H2_ERROR_CODE.matcher(why);
                throw new SQLException("The server process for " + file + " exited with " + server.exitValue() + ": "
                        + why, code.find() ? code.group(1) : "08001");
            }
            if (System.nanoTime() > deadline) {
                server.destroyForcibly();
                throw new SQLException("The server process for " + file + " did not start within " + START.toSeconds()
                        + " s: " + lastLine(log), "08001");
            }
            pause(20);
        }
    }

    private static void pause(long millis) throws SQLException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("Interrupted while connecting to the server process", "08001", e);
        }
    }

    /** Only the JDK, H2 and this class: where they are, or this process's class path if they are inside a jar of jars. */
    private static String classPath() {
        try {
            Path h2 = Path.of(org.h2.Driver.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path engine = Path.of(H2FileServer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return h2.equals(engine) ? h2.toString() : h2 + java.io.File.pathSeparator + engine;
        } catch (URISyntaxException | RuntimeException notAFile) {
            return System.getProperty("java.class.path");
        }
    }

    private static final Pattern H2_ERROR_CODE = Pattern.compile("\\[(\\d{5})-\\d+]");

    private static String lastLine(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return lines.isEmpty() ? "(nothing in " + log + ")" : lines.get(lines.size() - 1);
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e.getMessage() + ")";
        }
    }

    static FileChannel openStartLock(Path file) throws IOException {
        Files.createDirectories(file.getParent()); // as H2 would for the file
        return FileChannel.open(Path.of(file + ".server.lock"), StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    }

    /** The server process of a file and the port it serves on. */
    record Served(long pid, int port) {
    }

    /** The live process that {@code <file>.server} names, if it is still the one that wrote it. */
    static Optional<Served> serving(Path file) {
        Properties info = new Properties();
        try (var in = Files.newInputStream(Path.of(file + ".server"))) {
            info.load(in);
            long pid = Long.parseLong(info.getProperty("pid"));
            String started = info.getProperty("started");
            return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                    .filter(p -> startOf(p).equals(started))
                    .map(p -> new Served(pid, Integer.parseInt(info.getProperty("port"))));
        } catch (IOException | RuntimeException none) {
            return Optional.empty();
        }
    }

    /**
     * When {@code process} started, so that a reused pid is not taken for the server: on Linux the
     * kernel's count of clock ticks from boot to its start ({@code /proc/<pid>/stat}, field 22),
     * which no clock step moves. Not {@link ProcessHandle.Info#startInstant}: each JVM turns the
     * ticks into an instant with the boot time it read when it started, so after the wall clock
     * was stepped two JVMs name one process's start differently (13 s apart, seen on a loaded
     * machine) and an engine kept starting servers it could not recognize, one a minute.
     */
    static String startOf(ProcessHandle process) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
            // Fields after the command name, which is in parentheses and may hold spaces; field 22 is the 20th of them.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return "boot tick " + fields[19];
        } catch (IOException | RuntimeException notLinux) {
            return process.info().startInstant().map(Object::toString).orElse("");
        }
    }

    static void writeServerInfo(Path file, ProcessHandle self, int port) throws IOException {
        Path info = Path.of(file + ".server");
        Path written = Files.createTempFile(info.getParent(), info.getFileName().toString(), ".tmp");
        Files.writeString(written, String.format(Locale.ROOT, "pid=%d%nstarted=%s%nport=%d%n", self.pid(), startOf(self), port));
        try {
            Files.move(written, info, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(written, info, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    static void deleteServerInfo(Path file, ProcessHandle self) throws IOException {
        if (serving(file).filter(s -> s.pid() == self.pid()).isPresent()) {
            Files.deleteIfExists(Path.of(file + ".server"));
        }
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
        // not used: the pool logs
    }

    @Override
    public void setLoginTimeout(int seconds) {
        DriverManager.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() {
        return DriverManager.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        throw new SQLException("Not a wrapper of " + type.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
        return type.isInstance(this);
    }
}
