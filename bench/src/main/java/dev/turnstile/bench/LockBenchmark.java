package dev.turnstile.bench;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.retry.Locking;
import dev.turnstile.api.retry.RetryPoliciesConfig;
import dev.turnstile.api.retry.RetryPolicyConfig;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;

/**
 * A lock+unlock pair, as a user picking a lock for several nodes would compare them: the
 * cooperative lock ({@link Locking#withLock} with no work) beside ShedLock's JDBC provider, Spring
 * Integration's {@code JdbcLockRegistry} and the database's own lock (PostgreSQL's advisory lock,
 * MariaDB's GET_LOCK; on H2 a row locked by SELECT … FOR UPDATE) and a plain-JDBC row lock (one
 * conditional UPDATE each way, autocommitted), in one run on one database.
 * Cells: one thread on its own lock; 4 threads on one lock; 2 JVMs × 2 threads on one lock. A
 * refused try waits the same for every lock that does not wait by itself (0.5 to 1.5 ms). A fourth
 * cell, the cooperative lock's alone: one thread on a lock that a patient waiter in another engine
 * (its policy waits 5 minutes) had a moment before — what that waiter's word, left standing, costs;
 * on PostgreSQL only, where an unlock wakes a waiter in another engine (elsewhere it waits its 5 minutes).
 */
@Command(name = "locks", description = "Lock+unlock pairs per second: the cooperative lock beside ShedLock, Spring Integration's"
        + " JdbcLockRegistry and the database's own lock, uncontended, 4 threads, 2 JVMs x 2 threads.")
final class LockBenchmark implements Callable<Integer> {

    @Mixin
    BenchDatabase database;

    @Option(names = "--seconds", defaultValue = "5", description = "measured seconds per cell (default ${DEFAULT-VALUE})")
    int seconds;

    @Option(names = "--warm-up", defaultValue = "3", description = "seconds of pairs before each cell is measured (default ${DEFAULT-VALUE})")
    int warmUp;

    @Option(names = "--rounds", defaultValue = "3", description = "rounds; each cell reports its median (default ${DEFAULT-VALUE})")
    int rounds;

    @Option(names = "--columns", split = ",", description = "the columns to run (default: all of FLOOR, ROW_FLOOR, SHEDLOCK, JDBC_LOCK_REGISTRY, TURNSTILE)")
    List<String> columns;

    @Option(names = "--work", description = "inside each lock, a read-modify-write of a counter row in plain JDBC (its value read,"
            + " then that + 1 written, committed), as users do; each cell then checks that the row counts every pair: none lost")
    boolean work;

    @Option(names = "--properties", description = "string properties of 40 characters on Turnstile's locked object, as a"
            + " document carries (default 0)")
    int properties;

    @Option(names = "--child", hidden = true, description = "run as a child process: this column")
    String child;

    @Option(names = "--work-row", hidden = true, description = "the child's counter row (with --work)")
    int workRow;

    @Option(names = "--lock", hidden = true, description = "the child's lock: its name (and the Turnstile object's id)")
    String lock;

    /** The locks compared, on {@link #database}. */
    private LockColumns locks;
    /** The rows {@code --work} writes inside the locks, one per cell and column. */
    private static final String WORK_TABLE = "ts_bench_lock_work";
    private CounterTable counters;

    @Override
    public Integer call() throws Exception {
        locks = new LockColumns(database, properties);
        if (child != null) {
            return runChild();
        }
        List<String> chosen = columns == null ? LockColumns.COLUMNS : columns;
        locks.createTables();
        counters = work ? new CounterTable(database, WORK_TABLE) : null;
        System.out.printf(Locale.ROOT, "locks benchmark on %s: lock+unlock pairs per second%s, %d s per cell after %d s of"
                + " warm-up, median of %d rounds%s%n%n", database.url(), work ? ", a read-modify-write of a counter row inside each"
                : "", seconds, warmUp, rounds, properties == 0 ? "" : ", " + properties + " properties on Turnstile's object");
        String[] cells = {"1 thread, own lock", "4 threads, one lock", "2 JVMs × 2 threads, one lock",
                "1 thread, after a patient waiter elsewhere had it"};
        List<String> rateRows = new ArrayList<>();
        List<String> timeRows = new ArrayList<>();
        List<String> cpuRows = new ArrayList<>();
        // Only PostgreSQL wakes a waiter in another engine at the unlock; elsewhere the patient one waits its 5 minutes.
        int cellCount = database.url().startsWith("jdbc:postgresql") ? cells.length : cells.length - 1;
        for (int cell = 0; cell < cellCount; cell++) {
            Map<String, Cell> medians = new LinkedHashMap<>();
            for (String column : chosen) {
                if (cell == 3 && !column.equals("TURNSTILE")) {
                    continue;
                }
                List<Cell> measured = new ArrayList<>();
                for (int r = 0; r < rounds; r++) {
                    measured.add(cell == 3 ? afterPatientWaiter() : cell == 2 ? twoProcesses(column) : inProcess(column, cell == 0 ? 1 : 4));
                }
                measured.sort(Comparator.comparingDouble(Cell::rate));
                medians.put(column, measured.get(measured.size() / 2));
            }
            rateRows.add("| " + cells[cell] + " | " + String.join(" | ", chosen.stream()
                    .map(c -> medians.containsKey(c) ? String.format(Locale.ROOT, "%,.0f", medians.get(c).rate()) : "—").toList())
                    + " | " + ratio(medians, "FLOOR") + " | " + ratio(medians, bestPeer(medians)) + " |");
            timeRows.add("| " + cells[cell] + " | " + String.join(" | ", chosen.stream()
                    .map(c -> medians.containsKey(c) ? medians.get(c).times() : "— | —").toList()) + " |");
            cpuRows.add("| " + cells[cell] + " | " + String.join(" | ", chosen.stream()
                    .map(c -> medians.containsKey(c) ? medians.get(c).cpu() : "— | —").toList()) + " |");
        }
        System.out.println("| cell | " + String.join(" | ", chosen) + " | TURNSTILE vs FLOOR | TURNSTILE vs best peer |");
        System.out.println("|---|" + "---|".repeat(chosen.size() + 2));
        rateRows.forEach(System.out::println);
        System.out.println();
        System.out.println("Time of one lock+unlock pair (ms), the median round's:");
        System.out.println();
        System.out.println("| cell | " + String.join(" | ", chosen.stream().map(c -> c + " p50 | " + c + " p99").toList()) + " |");
        System.out.println("|---|" + "---|".repeat(2 * chosen.size()));
        timeRows.forEach(System.out::println);
        System.out.println();
        System.out.println("CPU of the lock's JVMs per pair (ms; every thread, the JIT compilers' too) and the share of the"
                + " measured time the JIT compilers spent compiling, the median round's:");
        System.out.println();
        System.out.println("| cell | " + String.join(" | ", chosen.stream().map(c -> c + " CPU/pair | " + c + " JIT").toList()) + " |");
        System.out.println("|---|" + "---|".repeat(2 * chosen.size()));
        cpuRows.forEach(System.out::println);
        return 0;
    }

    /** A cell's measure: pairs per second, every pair's time, and what the lock's JVMs spent over the measured seconds. */
    private record Cell(double rate, long[] nanos, Spent spent) {
        String times() {
            Percentiles p = new Percentiles(nanos);
            return String.format(Locale.ROOT, "%.2f | %.2f", p.millis(0.5), p.millis(0.99));
        }

        String cpu() {
            return spent.perOperation(nanos.length);
        }
    }

    /** The faster of the peers measured in this cell, or null if none was. */
    private static String bestPeer(Map<String, Cell> cells) {
        return cells.entrySet().stream().filter(e -> e.getKey().equals("SHEDLOCK") || e.getKey().equals("JDBC_LOCK_REGISTRY"))
                .max(Comparator.comparingDouble(e -> e.getValue().rate())).map(Map.Entry::getKey).orElse(null);
    }

    /** TURNSTILE's rate ÷ the named column's, "—" where either was not measured. */
    private static String ratio(Map<String, Cell> cells, String to) {
        Cell turnstile = cells.get("TURNSTILE");
        Cell other = to == null ? null : cells.get(to);
        return turnstile == null || other == null ? "—"
                : String.format(Locale.ROOT, turnstile.rate() < other.rate() / 10 ? "%.3f× (%s)" : "%.2f× (%s)", turnstile.rate() / other.rate(), to);
    }

    private Cell inProcess(String column, int threads) throws Exception {
        String name = locks.newLock(column);
        try (LockColumns.Locks opened = locks.open(column, threads)) {
            return measure(opened, name, threads);
        }
    }

    /** A new counter row for a cell's work, or 0 without {@code --work}. */
    private int newWorkRow() throws Exception {
        return work ? counters.newRow() : 0;
    }

    /** With {@code --work}: the cell's row counts every pair that ran, or the lock let two writers in. */
    private void checkNoneLost(int row, long pairs, String what) throws Exception {
        if (work && counters.value(row) != pairs) {
            throw new IllegalStateException(what + ": the counter row holds " + counters.value(row) + " after " + pairs
                    + " read-modify-writes inside the lock — updates lost, two holders at once");
        }
    }

    /**
     * One thread's cooperative-lock pairs on an object that, a moment before, another engine's
     * waiter had: refused while a third engine held it, its policy waiting 5 minutes, woken by the
     * unlock, locked and let go. A word "I wait" it left standing would make every unlock here
     * notify that engine and hand it a turn it never takes.
     */
    private Cell afterPatientWaiter() throws Exception {
        String id = locks.newLock("TURNSTILE");
        EngineConfig patient = EngineConfig.from(database.engineConfig(2))
                .retry(RetryPoliciesConfig.builder().policy("patient", RetryPolicyConfig.builder().maxAttempts(20).waitDuration(Duration.ofMinutes(5)).build()).build())
                .build();
        ExecutorService one = Executors.newSingleThreadExecutor();
        try (ContentEngine holder = ContentEngine.open(database.engineConfig(2));
             ContentEngine elsewhere = ContentEngine.open(patient);
             LockColumns.Locks opened = locks.turnstile(1)) {
            CustomObject held = holder.session("holder").objectStore().getCustomObject(LockColumns.CLASS_NAME, UUID.fromString(id));
            held.lock(30, "holder");
            held.save(RefreshMode.REFRESH);
            CustomObject wanted = elsewhere.session("waiter").objectStore().getCustomObject(LockColumns.CLASS_NAME, UUID.fromString(id));
            Future<?> waiter = one.submit(() -> Locking.withLock(wanted, 30, "waiter", elsewhere.retryPolicies().get("patient"),
                    locked -> null));
            TimeUnit.SECONDS.sleep(1); // time for the waiter to be refused and wait; the unlock wakes it either way
            held.unlock();
            held.save(RefreshMode.REFRESH);
            waiter.get(1, TimeUnit.MINUTES);
            return measure(opened, id, 1);
        } finally {
            one.shutdownNow();
        }
    }

    /** Runs pairs on {@code threads} threads for the warm-up, then for {@link #seconds}; with {@code --work}, checks the count. */
    private Cell measure(LockColumns.Locks opened, String name, int threads) throws Exception {
        int row = newWorkRow();
        List<Connection> connections = new ArrayList<>();
        try {
            List<Step> pairs = pairs(opened, name, threads, row, connections);
            long warm = run(pairs, warmUp).nanos().length;
            Cell measured = run(pairs, seconds);
            checkNoneLost(row, warm + measured.nanos().length, name);
            return measured;
        } finally {
            for (Connection c : connections) {
                c.close();
            }
        }
    }

    /** One thread's measured step: a pair, with the work inside it. */
    private interface Step {
        void run() throws Exception;
    }

    /** {@code threads} steps on the lock, each with its own connection for the work inside (into {@code connections}). */
    private List<Step> pairs(LockColumns.Locks opened, String name, int threads, int row, List<Connection> connections) throws Exception {
        List<Step> steps = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            LockColumns.Pair pair = opened.pair(name);
            LockColumns.Work inside = work ? readThenWrite(row, connections) : LockColumns.Work.NONE;
            steps.add(() -> pair.run(inside));
        }
        return steps;
    }

    /** The work inside a lock: a read-modify-write of {@code row} on a connection of its own (added to {@code connections}). */
    private LockColumns.Work readThenWrite(int row, List<Connection> connections) throws java.sql.SQLException {
        Connection c = database.connect();
        connections.add(c);
        return () -> CounterTable.readThenWrite(c, WORK_TABLE, row);
    }

    private static Cell run(List<Step> pairs, int seconds) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(pairs.size());
        try {
            CountDownLatch gate = new CountDownLatch(1);
            AtomicBoolean stop = new AtomicBoolean();
            List<Future<long[]>> times = new ArrayList<>();
            for (Step pair : pairs) {
                times.add(pool.submit(() -> {
                    gate.await();
                    long[] nanos = new long[1024];
                    int n = 0;
                    while (!stop.get()) {
                        long start = System.nanoTime();
                        pair.run();
                        if (n == nanos.length) {
                            nanos = Arrays.copyOf(nanos, n * 2);
                        }
                        nanos[n++] = System.nanoTime() - start;
                    }
                    return Arrays.copyOf(nanos, n);
                }));
            }
            Spent before = Spent.now();
            gate.countDown();
            TimeUnit.SECONDS.sleep(seconds); // the measured period, not a wait for a condition
            stop.set(true);
            long[] all = new long[0];
            for (Future<long[]> f : times) {
                all = concat(all, f.get(5, TimeUnit.MINUTES));
            }
            Spent spent = Spent.now().since(before);
            return new Cell(all.length / (spent.wallNanos() / 1e9), all, spent);
        } finally {
            pool.shutdownNow();
        }
    }

    private static long[] concat(long[] a, long[] b) {
        long[] both = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    private Cell twoProcesses(String column) throws Exception {
        String name = locks.newLock(column);
        int row = newWorkRow();
        List<List<String>> arguments = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            List<String> args = new ArrayList<>(List.of("locks", "--child", column, "--lock", name, "--seconds", "" + seconds,
                    "--warm-up", "" + warmUp, "--url", database.url(i), "--user", database.user(), "--password", database.password()));
            if (work) {
                args.addAll(List.of("--work", "--work-row", "" + row));
            }
            arguments.add(args);
        }
        ChildProcesses children = new ChildProcesses(arguments);
        children.readyThenGo();
        double rate = 0;
        long[] nanos = new long[0];
        long pairs = 0;
        Spent spent = Spent.NONE;
        for (BufferedReader out : children.outputs()) {
            rate += Double.parseDouble(ChildProcesses.expect(out, "RATE ").substring(5));
            String times = ChildProcesses.expect(out, "NANOS").substring(5).strip();
            nanos = concat(nanos, times.isEmpty() ? new long[0] : Arrays.stream(times.split(",")).mapToLong(Long::parseLong).toArray());
            pairs += Long.parseLong(ChildProcesses.expect(out, "PAIRS ").substring(6));
            spent = spent.plus(Spent.parse(ChildProcesses.expect(out, "SPENT ")));
        }
        children.awaitExit();
        checkNoneLost(row, pairs, name + " (2 JVMs)");
        return new Cell(rate, nanos, spent);
    }

    /** A child: warms up on its own, then measures after the parent's GO, so both processes run together. */
    private int runChild() throws Exception {
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        List<Connection> connections = new ArrayList<>();
        try (LockColumns.Locks opened = locks.open(child, 2)) {
            List<Step> pairs = pairs(opened, lock, 2, workRow, connections);
            long warm = run(pairs, warmUp).nanos().length;
            System.out.println("READY");
            System.out.flush();
            stdin.readLine();
            Cell measured = run(pairs, seconds);
            System.out.println("RATE " + measured.rate());
            System.out.println("NANOS " + String.join(",", Arrays.stream(measured.nanos()).mapToObj(Long::toString).toList()));
            System.out.println("PAIRS " + (warm + measured.nanos().length));
            System.out.println(measured.spent().line());
            System.out.flush();
        } finally {
            for (Connection c : connections) {
                c.close();
            }
        }
        return 0;
    }
}
