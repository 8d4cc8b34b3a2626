package dev.turnstile.engine;

import org.awaitility.Awaitility;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A real second JVM on the test class path, for claims about several processes sharing a
 * database. Its standard output is collected line by line; its standard error goes to a file under
 * target/ so a failing child can be diagnosed. {@link #kill()} is SIGKILL, not a polite stop.
 */
public final class ChildJvm implements AutoCloseable {
    private final Process process;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final PrintWriter stdin;
    private final Path errorLog;
    private final Thread reader;

    private ChildJvm(Process process, Path errorLog) {
        this.process = process;
        this.errorLog = errorLog;
        this.stdin = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
        this.reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the child died; what it printed so far stays in lines
            }
        }, "child-" + process.pid() + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    public static ChildJvm start(Class<?> main, String... args) throws IOException {
        return start(java.util.Map.of(), main, args);
    }

    /** A child with extra environment variables (LD_PRELOAD of libfaketime, say). */
    public static ChildJvm start(java.util.Map<String, String> env, Class<?> main, String... args) throws IOException {
        return start(env, System.getProperty("java.class.path"), main, args);
    }

    /** A child whose class path lacks the jars whose file names start with one of {@code jarPrefixes} (a host without a driver, say). */
    public static ChildJvm startWithout(java.util.Set<String> jarPrefixes, Class<?> main, String... args) throws IOException {
        String classPath = java.util.Arrays.stream(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
                .filter(entry -> jarPrefixes.stream().noneMatch(Path.of(entry).getFileName().toString()::startsWith))
                .collect(java.util.stream.Collectors.joining(java.io.File.pathSeparator));
        return start(java.util.Map.of(), classPath, main, args);
    }

    private static ChildJvm start(java.util.Map<String, String> env, String classPath, Class<?> main, String... args)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        // A child lives seconds and the suites start hundreds: compile with C1 only, and skip
        // verifying the class path's bytecode (a fifth of a child's start-up CPU, measured).
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UnlockDiagnosticVMOptions");
        command.add("-XX:-BytecodeVerificationRemote");
        command.add("-cp");
        command.add(classPath);
        command.add(main.getName());
        command.addAll(List.of(args));
        Path dir = Files.createDirectories(Path.of("target", "child-logs"));
        Path errorLog = Files.createTempFile(dir, main.getSimpleName() + "-", ".log");
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(errorLog.toFile());
        builder.environment().putAll(env);
        Process p = builder.start();
        return new ChildJvm(p, errorLog);
    }

    public long pid() {
        return process.pid();
    }

    /** Sends one line to the child's standard input. */
    public void send(String line) {
        stdin.println(line);
    }

    public List<String> lines() {
        return List.copyOf(lines);
    }

    /** Waits until a line matches; fails at once if the child dies without printing one. */
    public String awaitLine(Predicate<String> match, Duration timeout) {
        return Awaitility.await("a line from child " + process.pid() + " (stderr in " + errorLog + ")")
                .atMost(timeout)
                .pollInterval(Duration.ofMillis(20))
                .failFast("child " + process.pid() + " exited; stderr in " + errorLog,
                        () -> !process.isAlive() && !reader.isAlive() && lines.stream().noneMatch(match))
                .until(() -> lines.stream().filter(match).findFirst(), Optional::isPresent)
                .orElseThrow();
    }

    public long countLines(Predicate<String> match) {
        return lines.stream().filter(match).count();
    }

    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("child " + process.pid() + " did not exit in " + timeout + "; stderr in " + errorLog);
        }
        return process.exitValue();
    }

    /**
     * SIGKILL: the child gets no chance to commit, roll back or close anything. Sent through the
     * process handle, not {@code Process.destroyForcibly()}, which also closes our end of the
     * child's standard output: lines it printed but we had not read yet would be lost, and a test
     * would count a reported commit as unreported. The reader drains the pipe to its end.
     */
    public void kill() {
        process.toHandle().destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
            reader.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Ends the child if it still runs, and keeps what it printed beside its stderr, for diagnosis. */
    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
        }
        try {
            Files.write(Path.of(errorLog + ".out"), lines);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
