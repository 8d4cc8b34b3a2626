package dev.turnstile.engine;

import org.awaitility.Awaitility;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * A real second JVM on the test class path, for claims about several processes sharing a
 * database. Its standard output is collected line by line; its standard error goes to a file under
 * target/ so a failing child can be diagnosed. {@link #kill()} is SIGKILL, not a polite stop.
 *
 * <p>{@link #start(Class, String...)} runs the worker in a JVM that ran an earlier worker of this
 * test JVM and has finished it, if one is idle ({@link ReusedJvm}), else in a new one: a JVM's start
 * is seconds of CPU, and the suites need hundreds of "another process". A worker's process is its
 * own while it runs — never shared, never another worker's — and a JVM whose worker was killed,
 * or had not finished when the test closed it, is never used again.
 */
public final class ChildJvm implements AutoCloseable {
    private static final Deque<Jvm> IDLE = new ConcurrentLinkedDeque<>();
    private static final Path THIS_JAVA = Path.of(System.getProperty("java.home"));
    private static final AtomicLong ROUNDS = new AtomicLong();
    /**
     * A child lives seconds and the suites start hundreds: compile with C1 only, and skip verifying
     * the class path's bytecode (a fifth of a child's start-up CPU, measured).
     */
    private static final List<String> JVM_OPTIONS = List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UnlockDiagnosticVMOptions",
            "-XX:-BytecodeVerificationRemote");

    private final Jvm jvm;
    /** The round this worker is in a reused JVM; null in a JVM of its own. */
    private final String round;
    /** Where this worker's lines start in its JVM's. */
    private final int from;

    private ChildJvm(Jvm jvm, String round) {
        this.jvm = jvm;
        this.round = round;
        this.from = jvm.lines.size();
    }

    /** A JVM: the process, what it printed, its standard input and where its standard error goes. */
    private static final class Jvm {
        final Process process;
        final List<String> lines = new CopyOnWriteArrayList<>();
        final PrintWriter stdin;
        final Path errorLog;
        final Thread reader;

        Jvm(Process process, Path errorLog) {
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
    }

    /** {@code main} in a JVM of this test JVM's class path, a reused one where one is idle. */
    public static ChildJvm start(Class<?> main, String... args) throws IOException {
        Jvm jvm = IDLE.pollFirst();
        if (jvm == null) {
            jvm = launch(THIS_JAVA, java.util.Map.of(), System.getProperty("java.class.path"), ReusedJvm.class);
        }
        ChildJvm child = new ChildJvm(jvm, Long.toString(ROUNDS.incrementAndGet()));
        StringBuilder run = new StringBuilder("RUN ").append(child.round).append(' ').append(main.getName());
        for (String arg : args) {
            run.append(" =").append(URLEncoder.encode(arg, StandardCharsets.UTF_8));
        }
        jvm.stdin.println(run);
        return child;
    }

    /** A child with extra environment variables (LD_PRELOAD of libfaketime, say), in a JVM of its own. */
    public static ChildJvm start(java.util.Map<String, String> env, Class<?> main, String... args) throws IOException {
        return new ChildJvm(launch(THIS_JAVA, env, System.getProperty("java.class.path"), main, args), null);
    }

    /** A child on another Java runtime ({@code javaHome}: a newer JDK, say), in a JVM of its own. */
    public static ChildJvm startOn(Path javaHome, Class<?> main, String... args) throws IOException {
        return new ChildJvm(launch(javaHome, java.util.Map.of(), System.getProperty("java.class.path"), main, args), null);
    }

    /** A child run by {@code wrapper} (a command that runs another: {@code ip netns exec NAME}), in a JVM of its own. */
    public static ChildJvm startIn(List<String> wrapper, Class<?> main, String... args) throws IOException {
        return new ChildJvm(launch(wrapper, THIS_JAVA, java.util.Map.of(), System.getProperty("java.class.path"), main, args), null);
    }

    /** A child whose class path lacks the jars whose file names start with one of {@code jarPrefixes} (a host without a driver, say). */
    public static ChildJvm startWithout(java.util.Set<String> jarPrefixes, Class<?> main, String... args) throws IOException {
        String classPath = java.util.Arrays.stream(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
                .filter(entry -> jarPrefixes.stream().noneMatch(Path.of(entry).getFileName().toString()::startsWith))
                .collect(java.util.stream.Collectors.joining(java.io.File.pathSeparator));
        return new ChildJvm(launch(THIS_JAVA, java.util.Map.of(), classPath, main, args), null);
    }

    private static Jvm launch(Path javaHome, java.util.Map<String, String> env, String classPath, Class<?> main, String... args)
            throws IOException {
        return launch(List.of(), javaHome, env, classPath, main, args);
    }

    private static Jvm launch(List<String> wrapper, Path javaHome, java.util.Map<String, String> env, String classPath, Class<?> main,
                              String... args) throws IOException {
        List<String> command = new ArrayList<>(wrapper);
        command.add(javaHome.resolve("bin").resolve("java").toString());
        command.addAll(JVM_OPTIONS);
        // The classes every child loads, mapped from one archive instead.
        ChildClassArchive.Launch launch = ChildClassArchive.forChild(javaHome, classPath, JVM_OPTIONS);
        command.addAll(launch.options());
        command.add("-cp");
        command.add(launch.classPath());
        command.add(main.getName());
        command.addAll(List.of(args));
        Path dir = Files.createDirectories(Path.of("target", "child-logs"));
        Path errorLog = Files.createTempFile(dir, main.getSimpleName() + "-", ".log");
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(errorLog.toFile());
        builder.environment().putAll(env);
        return new Jvm(builder.start(), errorLog);
    }

    public long pid() {
        return jvm.process.pid();
    }

    /** Stops the process where it is (SIGSTOP), as a long GC pause or a frozen VM would, until {@link #resume()}. */
    public void pause() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** Lets a {@link #pause() paused} process go on (SIGCONT). */
    public void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill -" + signal + " " + pid() + " failed");
        }
    }

    /** Sends one line to the worker's standard input. */
    public void send(String line) {
        jvm.stdin.println(round == null ? line : "IN " + line);
    }

    /** What the worker printed so far. */
    public List<String> lines() {
        List<String> all = jvm.lines;
        List<String> mine = new ArrayList<>();
        for (int i = from; i < all.size(); i++) {
            if (round != null && all.get(i).startsWith(ReusedJvm.END + round + " ")) {
                break;
            }
            mine.add(all.get(i));
        }
        return mine;
    }

    /** The worker's exit status once its main has returned (0) or thrown (1); empty while it runs. */
    private Optional<Integer> ended() {
        if (round == null) {
            return jvm.process.isAlive() || jvm.reader.isAlive() ? Optional.empty() : Optional.of(jvm.process.exitValue());
        }
        String end = ReusedJvm.END + round + " ";
        for (int i = from; i < jvm.lines.size(); i++) {
            if (jvm.lines.get(i).startsWith(end)) {
                return Optional.of(Integer.parseInt(jvm.lines.get(i).substring(end.length())));
            }
        }
        return !jvm.process.isAlive() && !jvm.reader.isAlive() ? Optional.of(jvm.process.exitValue()) : Optional.empty();
    }

    /** Waits until a line matches; fails at once if the worker ends without printing one. */
    public String awaitLine(Predicate<String> match, Duration timeout) {
        return Awaitility.await("a line from child " + pid() + " (stderr in " + jvm.errorLog + ")")
                .atMost(timeout)
                .pollInterval(Duration.ofMillis(20))
                .failFast("child " + pid() + " ended; stderr in " + jvm.errorLog,
                        () -> ended().isPresent() && lines().stream().noneMatch(match))
                .until(() -> lines().stream().filter(match).findFirst(), Optional::isPresent)
                .orElseThrow();
    }

    public long countLines(Predicate<String> match) {
        return lines().stream().filter(match).count();
    }

    /** Waits for the worker to end: its exit status (0 when its main returned). */
    public int awaitExit(Duration timeout) {
        try {
            return Awaitility.await("child " + pid() + " to end").atMost(timeout).pollInterval(Duration.ofMillis(20))
                    .until(this::ended, Optional::isPresent).orElseThrow();
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("child " + pid() + " did not end in " + timeout + "; stderr in " + jvm.errorLog, e);
        }
    }

    /**
     * SIGKILL: the child gets no chance to commit, roll back or close anything. Sent through the
     * process handle, not {@code Process.destroyForcibly()}, which also closes our end of the
     * child's standard output: lines it printed but we had not read yet would be lost, and a test
     * would count a reported commit as unreported. The reader drains the pipe to its end.
     */
    public void kill() {
        jvm.process.toHandle().destroyForcibly();
        try {
            jvm.process.waitFor(30, TimeUnit.SECONDS);
            jvm.reader.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Keeps what the worker printed beside its JVM's stderr, for diagnosis; then ends the JVM if the
     * worker still runs, or gives it back for the next worker if it ended well.
     */
    @Override
    public void close() {
        List<String> mine = lines();
        if (round != null && jvm.process.isAlive() && ended().filter(status -> status == 0).isPresent()) {
            IDLE.addFirst(jvm);
        } else if (jvm.process.isAlive()) {
            kill();
        }
        try {
            Files.write(Path.of(jvm.errorLog + (round == null ? "" : "-" + round) + ".out"), mine);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
