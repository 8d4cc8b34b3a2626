package dev.turnstile.bench;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineStatistics;
import dev.turnstile.api.dispenser.Dispenser;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.DispenserStrategy;
import dev.turnstile.api.dispenser.DispensersConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongUnaryOperator;

/**
 * Numbers per second for each dispenser strategy at 1, 4, 16 and 64 threads and with 4 processes,
 * each beside the plain-JDBC floor measured in the same run: one {@code UPDATE counter SET n = n + 1;
 * SELECT n; COMMIT} per number on a raw connection. Each cell runs for a fixed time.
 */
@Command(name = "dispensers", mixinStandardHelpOptions = true,
        description = "Dispenser strategies against the plain-JDBC floor, by threads and with 4 processes.")
final class DispenserBenchmark implements Callable<Integer> {
    private static final String TABLE = "ts_bench_dispenser";

    @Mixin
    BenchDatabase database;

    @Option(names = "--seconds", defaultValue = "3", description = "seconds per cell (default ${DEFAULT-VALUE})")
    int seconds;

    @Option(names = "--threads", split = ",", defaultValue = "1,4,16,64", description = "thread counts (default ${DEFAULT-VALUE})")
    List<Integer> threadCounts;

    @Option(names = "--rounds", defaultValue = "3", description = "rounds per thread count; the median is shown (default ${DEFAULT-VALUE})")
    int rounds;

    @Option(names = "--processes", defaultValue = "4", description = "processes for the multi-process row; 0 skips it (default ${DEFAULT-VALUE})")
    int processes;

    @Option(names = "--process-seconds", defaultValue = "10", description = "seconds per cell of the multi-process row, after"
            + " a warm-up of half as long; 4 cold JVMs on 2 cores need several seconds of JIT (default ${DEFAULT-VALUE})")
    int processSeconds;

    @Option(names = "--numbers", defaultValue = "0", description = "instead of a time, take this many numbers per cell of the"
            + " multi-process row (split over processes × 4 threads)")
    int numbers;

    @Option(names = "--columns", split = ",", description = "columns to run beside FLOOR (default: every strategy)")
    List<String> columnsOption;

    @Option(names = "--register", description = "dispensers that keep a register of every number issued (default: none)")
    boolean register;

    @Option(names = "--child", hidden = true, description = "run as a child: take numbers with this strategy (FLOOR for JDBC)")
    String child;

    @Option(names = "--dispenser", hidden = true)
    String dispenserName;

    @Option(names = "--per-thread", hidden = true, defaultValue = "0")
    int perThread;

    private CounterTable table;

    private static final List<String> ALL_COLUMNS = List.of("FLOOR", "FIRST_WRITER_WINS", "FEELING_UNLUCKY", "COOPERATIVE_LOCK",
            "PESSIMISTIC", "COMBINING");

    private List<String> columns = ALL_COLUMNS;

    @Override
    public Integer call() throws Exception {
        if (child != null) {
            return runChild();
        }
        if (columnsOption != null) {
            List<String> chosen = new ArrayList<>(List.of("FLOOR"));
            for (String c : columnsOption) {
                if (!ALL_COLUMNS.contains(c)) {
                    throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
                            "--columns: unknown column " + c + "; one of " + ALL_COLUMNS);
                }
                if (!chosen.contains(c)) {
                    chosen.add(c);
                }
            }
            columns = chosen;
        }
        table = new CounterTable(database, TABLE);
        // A bounded pool: the floor's 64 raw connections and this pool must fit under PostgreSQL's
        // default max_connections of 100.
        try (ContentEngine engine = ContentEngine.open(database.engineConfig(24))) {
            System.out.printf(Locale.ROOT, "dispenser benchmark on %s, %d s per cell, median of %d rounds;"
                    + " numbers/s (statements per number)%n%n", database.url(), seconds, rounds);
            System.out.println("| threads | " + String.join(" | ", columns) + " | COMBINING vs floor |");
            System.out.println("|---" + "|---".repeat(columns.size() + 1) + "|");
            for (int threads : threadCounts) {
                // Rounds interleave the columns, so drift on a noisy machine hits them alike; each
                // cell shows its median round.
                List<List<double[]>> byColumn = new ArrayList<>();
                columns.forEach(c -> byColumn.add(new ArrayList<>()));
                for (int round = 0; round < rounds; round++) {
                    for (int i = 0; i < columns.size(); i++) {
                        String column = columns.get(i);
                        byColumn.get(i).add(column.equals("FLOOR") ? floorCell(threads) : engineCell(engine, column, threads));
                    }
                }
                List<String> cells = new ArrayList<>();
                double floor = 0;
                double combining = 0;
                for (int i = 0; i < columns.size(); i++) {
                    List<double[]> runs = new ArrayList<>(byColumn.get(i));
                    runs.sort(java.util.Comparator.comparingDouble(r -> r[0]));
                    double[] r = runs.get(runs.size() / 2);
                    cells.add(String.format(Locale.ROOT, "%,.0f (%.2f)", r[0], r[1]));
                    if (columns.get(i).equals("FLOOR")) {
                        floor = r[0];
                    } else if (columns.get(i).equals("COMBINING")) {
                        combining = r[0];
                    }
                }
                System.out.printf(Locale.ROOT, "| %d | %s | %s |%n", threads, String.join(" | ", cells),
                        combining > 0 ? String.format(Locale.ROOT, "%.1f×", combining / floor) : "–"); // COMBINING not run
            }
            if (processes > 0) {
                printProcessesRow(engine);
            }
        }
        return 0;
    }

    /**
     * The multi-process row: numbers per second of every column, and per strategy the latency of
     * {@code next()} over all calls of all processes and the calls that failed.
     */
    private void printProcessesRow(ContentEngine engine) throws Exception {
        String measure = numbers > 0 ? String.format(Locale.ROOT, "%,d numbers per cell", numbers)
                : processSeconds + " s per cell after " + Math.max(1, processSeconds / 2) + " s of warm-up";
        System.out.printf(Locale.ROOT, "%n%d processes × 4 threads, %s:%n%n", processes, measure);
        System.out.println("| column | numbers/s | vs floor | next() p50 ms | p99 ms | max ms | calls | calls failed"
                + " | statements/number | CPU ms/number | JIT |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|");
        double floor = 0;
        for (String column : columns) {
            ProcessesCell cell = processesCell(engine, column);
            if (column.equals("FLOOR")) {
                floor = cell.rate();
            }
            Percentiles p = new Percentiles(cell.latencies());
            System.out.printf(Locale.ROOT, "| %s | %,.0f | %.2f× | %.2f | %.2f | %.2f | %,d | %s | %.2f | %s |%n", column, cell.rate(),
                    cell.rate() / floor, p.millis(0.5), p.millis(0.99), p.millis(1.0), p.count(),
                    cell.failures().isEmpty() ? "0" : String.join("; ", cell.failures()),
                    (double) cell.statements() / Math.max(1, cell.taken()), cell.spent().perOperation(cell.taken()));
        }
    }

    private DispenserConfig settings(String column) {
        return switch (column) {
            case "FEELING_UNLUCKY" -> DispenserConfig.builder().strategy(DispenserStrategy.FIRST_WRITER_WINS).feelingUnlucky(true)
                    .register(register).build();
            default -> DispenserConfig.builder().strategy(DispenserStrategy.valueOf(column)).register(register).build();
        };
    }

    private String newDispenser(ContentEngine engine) {
        String name = "bench-" + UUID.randomUUID().toString().substring(0, 8);
        engine.session("bench", Set.of(DispensersConfig.DEFAULT_ADMIN_ROLE)).dispensers().create(name, DispenserConfig.builder().register(register).build());
        return name;
    }

    /** {numbers per second, statements per number} for one strategy on a fresh dispenser. */
    private double[] engineCell(ContentEngine engine, String column, int threads) throws Exception {
        String name = newDispenser(engine);
        List<Dispenser> perThread = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            perThread.add(engine.session("bench" + t).dispensers().get(name, settings(column)));
        }
        runFor(threads, t -> perThread.get(t)::next, Math.max(1, seconds / 2)); // warm-up: JIT, caches, remembered USNs
        EngineStatistics before = engine.statistics();
        Run run = runFor(threads, t -> perThread.get(t)::next, seconds);
        double statements = (double) engine.statistics().since(before).statements() / Math.max(1, run.numbers());
        return new double[] {run.rate(), statements};
    }

    private double[] floorCell(int threads) throws Exception {
        int row = table.newRow();
        List<Connection> connections = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            connections.add(database.connect());
        }
        try {
            runFor(threads, t -> () -> CounterTable.increment(connections.get(t), TABLE, row), Math.max(1, seconds / 2));
            return new double[] {runFor(threads, t -> () -> CounterTable.increment(connections.get(t), TABLE, row), seconds).rate(), 2};
        } finally {
            for (Connection c : connections) {
                c.close();
            }
        }
    }

    private interface Taker {
        long take() throws Exception;
    }

    private interface TakerFactory {
        Taker create(int thread);
    }

    /** Runs every thread's taker for {@code seconds}. A failed call ends the run. */
    private static Run runFor(int threads, TakerFactory factory, int seconds) throws Exception {
        return run(threads, factory, seconds, 0, false);
    }

    /** What the threads of a run did: numbers taken, each call's latency (ns), the calls that failed, what the JVM spent. */
    private record Run(long numbers, long[] latencies, List<String> failures, Spent spent) {
        double rate() {
            return numbers / (spent.wallNanos() / 1e9);
        }
    }

    /**
     * Runs every thread's taker for {@code seconds}, or for {@code perThread} calls each when that
     * is positive. With {@code keepGoing} a failed call is recorded and the thread goes on (a
     * strategy's exhausted policy is a result); without, it ends the run.
     */
    private static Run run(int threads, TakerFactory factory, int seconds, int perThread, boolean keepGoing) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch go = new CountDownLatch(1);
        List<String> failures = Collections.synchronizedList(new ArrayList<>());
        try {
            List<Future<long[]>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Taker taker = factory.create(t);
                futures.add(pool.submit(() -> {
                    go.await();
                    long[] latencies = new long[1024];
                    int calls = 0;
                    while (perThread > 0 ? calls < perThread : !stop.get()) {
                        long start = System.nanoTime();
                        try {
                            taker.take();
                        } catch (RuntimeException e) {
                            if (!keepGoing) {
                                throw e;
                            }
                            String message = String.valueOf(e.getMessage());
                            failures.add(message.substring(0, Math.min(160, message.length())));
                        }
                        if (calls == latencies.length) {
                            latencies = Arrays.copyOf(latencies, calls * 2);
                        }
                        latencies[calls++] = System.nanoTime() - start;
                    }
                    return Arrays.copyOf(latencies, calls);
                }));
            }
            Spent before = Spent.now();
            go.countDown();
            if (perThread == 0) {
                Thread.sleep(seconds * 1000L); // the benchmark's measuring window, not a wait for a condition
                stop.set(true);
            }
            List<long[]> perThreadLatencies = new ArrayList<>();
            for (Future<long[]> f : futures) {
                perThreadLatencies.add(f.get(30, TimeUnit.MINUTES));
            }
            Spent spent = Spent.now().since(before);
            long[] all = perThreadLatencies.stream().flatMapToLong(Arrays::stream).toArray();
            return new Run(all.length - failures.size(), all, List.copyOf(failures), spent);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * One cell of the multi-process row: the processes' summed rate, every call's latency, the failed
     * calls (summarised), and over the measured run the numbers taken, their statements (a block per
     * statement shows here) and what the JVMs spent.
     */
    private record ProcessesCell(double rate, long[] latencies, List<String> failures, long taken, long statements, Spent spent) {
    }

    /** {@link #processes} child JVMs with 4 threads each, started together. */
    private ProcessesCell processesCell(ContentEngine engine, String column) throws Exception {
        String name = column.equals("FLOOR") ? "" + table.newRow() : newDispenser(engine);
        int perThreadCalls = numbers > 0 ? Math.max(1, numbers / (processes * 4)) : 0;
        List<List<String>> arguments = new ArrayList<>();
        for (int i = 0; i < processes; i++) {
            List<String> child = new ArrayList<>(List.of("dispensers", "--child", column, "--dispenser", name, "--seconds",
                    "" + processSeconds, "--per-thread", "" + perThreadCalls, "--url", database.url(i), "--user", database.user(),
                    "--password", database.password()));
            if (register) {
                child.add("--register");
            }
            arguments.add(child);
        }
        ChildProcesses children = new ChildProcesses(arguments);
        children.readyThenGo();
        List<BufferedReader> outputs = children.outputs();
        double rate = 0;
        List<long[]> latencies = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        long statements = 0;
        Spent spent = Spent.NONE;
        for (BufferedReader out : outputs) {
            rate += Double.parseDouble(ChildProcesses.expect(out, "RATE ").substring(5));
            String line = ChildProcesses.expect(out, "LATENCIES ").substring(10);
            latencies.add(line.isEmpty() ? new long[0]
                    : Arrays.stream(line.split(",")).mapToLong(us -> Long.parseLong(us) * 1000).toArray());
            int failed = Integer.parseInt(ChildProcesses.expect(out, "FAILED ").substring(7));
            for (int f = 0; f < failed; f++) {
                failures.add(ChildProcesses.expect(out, "FAILURE ").substring(8));
            }
            statements += Long.parseLong(ChildProcesses.expect(out, "STATEMENTS ").substring(11));
            spent = spent.plus(Spent.parse(ChildProcesses.expect(out, "SPENT ")));
        }
        children.awaitExit();
        long[] all = latencies.stream().flatMapToLong(Arrays::stream).toArray();
        return new ProcessesCell(rate, all, summarise(failures), all.length - failures.size(), statements, spent);
    }

    /** Failures as "count × message", the most frequent first. */
    private static List<String> summarise(List<String> failures) {
        Map<String, Long> counts = new TreeMap<>();
        failures.forEach(f -> counts.merge(f, 1L, Long::sum));
        return counts.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .map(e -> e.getValue() + " × " + e.getKey()).toList();
    }

    private int runChild() throws Exception {
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        int warmUp = Math.max(1, seconds / 2);
        if (child.equals("FLOOR")) {
            int row = Integer.parseInt(dispenserName);
            List<Connection> connections = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                connections.add(database.connect());
            }
            runFor(4, t -> () -> CounterTable.increment(connections.get(t), TABLE, row), warmUp);
            report(stdin, 4, t -> () -> CounterTable.increment(connections.get(t), TABLE, row), numbers -> 2 * numbers);
            for (Connection c : connections) {
                c.close();
            }
            return 0;
        }
        try (ContentEngine engine = ContentEngine.open(database.engineConfig(6))) {
            List<Dispenser> perThreadDispenser = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                perThreadDispenser.add(engine.session("child" + t).dispensers().get(dispenserName, settings(child)));
            }
            runFor(4, t -> perThreadDispenser.get(t)::next, warmUp); // a cold JVM is not what we measure
            EngineStatistics before = engine.statistics();
            report(stdin, 4, t -> perThreadDispenser.get(t)::next, numbers -> engine.statistics().since(before).statements());
        }
        return 0;
    }

    /**
     * A child's measured run after the parent's GO, reported on stdout: rate, latencies (µs),
     * failures, the run's {@code statements} (of the numbers taken) and what this JVM spent.
     */
    private void report(BufferedReader stdin, int threads, TakerFactory factory, LongUnaryOperator statements) throws Exception {
        System.out.println("READY");
        System.out.flush();
        stdin.readLine();
        Run run = run(threads, factory, seconds, perThread, true);
        StringBuilder out = new StringBuilder();
        out.append("RATE ").append(run.rate()).append('\n');
        out.append("LATENCIES ");
        for (int i = 0; i < run.latencies().length; i++) {
            out.append(i == 0 ? "" : ",").append(run.latencies()[i] / 1000);
        }
        out.append('\n').append("FAILED ").append(run.failures().size()).append('\n');
        run.failures().forEach(f -> out.append("FAILURE ").append(f.replace('\n', ' ')).append('\n'));
        out.append("STATEMENTS ").append(statements.applyAsLong(run.numbers())).append('\n');
        out.append(run.spent().line()).append('\n');
        System.out.print(out);
        System.out.flush();
    }
}
