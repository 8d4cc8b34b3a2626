package dev.turnstile.bench;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.EngineStatistics;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.retry.Locking;
import dev.turnstile.api.retry.RetryPoliciesConfig;
import dev.turnstile.api.retry.RetryPolicy;
import dev.turnstile.api.retry.RetryPolicyConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * Increments of a counter, four ways, on the same database in one run: the plain-JDBC floor (one
 * atomic {@code UPDATE n = n + 1; COMMIT}), Turnstile's USN-guarded save (with the USN remembered
 * from the previous save, and with a fetch before every save), the naive pessimistic alternative
 * ({@code SELECT … FOR UPDATE; UPDATE; COMMIT}) and the naive unguarded read-then-write that loses
 * updates under contention; and the cooperative lock of the "take a number" article, two round
 * trips per increment (lock, then update + unlock), with the lock retried by a retry policy. First uncontended (one thread, own row), then contended (N threads,
 * one row). Every scenario's final counter is checked against the increments made.
 */
@Command(name = "objects", mixinStandardHelpOptions = true,
        description = "USN-guarded saves against the plain-JDBC floor and the naive alternatives.")
final class ObjectSaveBenchmark implements java.util.concurrent.Callable<Integer> {
    private static final String TABLE = "ts_bench_counter";
    private static final String CLASS_NAME = "BenchCounter";
    private static final String LOCK_POLICY = "bench-locks";

    @Mixin
    BenchDatabase database;

    @Option(names = "--ops", defaultValue = "3000", description = "timed increments per scenario (default ${DEFAULT-VALUE})")
    int ops;

    @Option(names = "--threads", defaultValue = "4", description = "threads in the contended scenarios (default ${DEFAULT-VALUE})")
    int threads;

    @Option(names = "--rounds", defaultValue = "5", description = "rounds per scenario; the median is reported (default ${DEFAULT-VALUE})")
    int rounds;

    private CounterTable table;
    private ContentEngine engine;

    @Override
    public Integer call() throws Exception {
        table = new CounterTable(database, TABLE);
        EngineConfig config = EngineConfig.from(database.engineConfig(threads + 2))
                .retry(RetryPoliciesConfig.builder().policy(LOCK_POLICY, RetryPolicyConfig.builder().maxAttempts(1_000_000)
                        .waitDuration(Duration.ofMillis(1)).enableRandomizedWait(true).randomizedWaitFactor(0.5).build()).build())
                .build();
        try (ContentEngine opened = ContentEngine.open(config)) {
            engine = opened;
            engine.session("bench").objectStore().defineClass(CLASS_NAME, c -> c.int64("N"));
            System.out.printf(Locale.ROOT, "objects benchmark on %s: %d increments per scenario, median of %d rounds, contended with %d threads%n%n",
                    database.url(), ops, rounds, threads);
            List<ScenarioRun> uncontended = List.of(
                    () -> jdbcScenario("JDBC floor: UPDATE n = n + 1; COMMIT", 1, false, "1", this::floor),
                    () -> engineScenario("Turnstile: save with remembered USN", 1, false, false),
                    () -> engineScenario("Turnstile: fetch, then save", 1, false, true),
                    () -> lockScenario("Turnstile: cooperative lock, then update + unlock", 1, false),
                    () -> jdbcScenario("naive: SELECT … FOR UPDATE; UPDATE; COMMIT", 1, false, "2", this::pessimistic),
                    () -> jdbcScenario("naive: SELECT; UPDATE (unguarded)", 1, false, "2", this::unguarded));
            print("Uncontended (1 thread, own row)", rounds(uncontended));
            List<ScenarioRun> contended = List.of(
                    () -> jdbcScenario("JDBC floor: UPDATE n = n + 1; COMMIT", threads, true, "1", this::floor),
                    () -> engineScenario("Turnstile: save, refresh on E_OBJECT_MODIFIED", threads, true, false),
                    () -> lockScenario("Turnstile: cooperative lock (retry policy), then update + unlock", threads, true),
                    () -> jdbcScenario("naive: SELECT … FOR UPDATE; UPDATE; COMMIT", threads, true, "2", this::pessimistic),
                    () -> jdbcScenario("naive: SELECT; UPDATE (unguarded)", threads, true, "2", this::unguarded));
            print("Contended (" + threads + " threads, one row)", rounds(contended));
        }
        return 0;
    }

    private interface ScenarioRun {
        Scenario.Result run() throws Exception;
    }

    /**
     * Runs every scenario once to warm up, then {@code rounds} times, interleaved so drift on a noisy machine hits them
     * alike, and keeps each scenario's median round (lost updates are summed over all rounds).
     */
    private List<Scenario.Result> rounds(List<ScenarioRun> scenarios) throws Exception {
        List<List<Scenario.Result>> byScenario = new ArrayList<>();
        scenarios.forEach(s -> byScenario.add(new ArrayList<>()));
        for (ScenarioRun scenario : scenarios) {
            scenario.run(); // warm-up round: JIT, connection pools, server caches
        }
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < scenarios.size(); i++) {
                byScenario.get(i).add(scenarios.get(i).run());
            }
        }
        List<Scenario.Result> medians = new ArrayList<>();
        for (List<Scenario.Result> runs : byScenario) {
            List<Scenario.Result> sorted = new ArrayList<>(runs);
            sorted.sort(java.util.Comparator.comparingLong(Scenario.Result::nanos));
            Scenario.Result median = sorted.get(sorted.size() / 2);
            long lost = runs.stream().mapToLong(Scenario.Result::lostUpdates).sum();
            medians.add(new Scenario.Result(median.name(), median.threads(), median.ops(), median.nanos(),
                    median.conflicts(), lost, median.statementsPerOp()));
        }
        return medians;
    }

    private void print(String title, List<Scenario.Result> results) {
        System.out.println("### " + title);
        System.out.println();
        System.out.println("| scenario | threads | increments/s | µs/increment | time vs floor | statements/increment | conflicts | lost updates |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        for (Scenario.Result r : results) {
            System.out.println(r.row(results.get(0)));
        }
        System.out.println();
    }

    // --- plain JDBC ---

    private interface JdbcIncrement {
        void increment(Connection c, int row) throws SQLException;
    }

    private Scenario.Result jdbcScenario(String name, int threadCount, boolean shareRow, String statements,
                                         JdbcIncrement increment) throws Exception {
        int sharedRow = table.newRow();
        int perThread = ops / threadCount;
        int warmup = Math.max(10, perThread / 10);
        List<Integer> rows = new ArrayList<>();
        long[] timing = Scenario.run(threadCount, perThread, warmup, thread -> {
            int row = shareRow ? sharedRow : table.newRow();
            synchronized (rows) {
                if (!rows.contains(row)) {
                    rows.add(row);
                }
            }
            Connection c = database.connect();
            return new Scenario.Worker() {
                @Override
                public void increment() throws SQLException {
                    increment.increment(c, row);
                }

                @Override
                public void release() throws SQLException {
                    c.close();
                }
            };
        });
        long expected = (long) threadCount * (perThread + warmup);
        long actual = 0;
        for (int row : rows) {
            actual += readRow(row);
        }
        return new Scenario.Result(name, threadCount, (long) threadCount * perThread, timing[0], timing[1],
                expected - actual, statements);
    }

    private void floor(Connection c, int row) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("UPDATE " + TABLE + " SET n = n + 1 WHERE id = ?")) {
            s.setInt(1, row);
            s.executeUpdate();
        }
        c.commit();
    }

    private void pessimistic(Connection c, int row) throws SQLException {
        long n = select(c, row, " FOR UPDATE");
        write(c, row, n + 1);
        c.commit();
    }

    private void unguarded(Connection c, int row) throws SQLException {
        long n = select(c, row, "");
        write(c, row, n + 1);
        c.commit();
    }

    private static long select(Connection c, int row, String suffix) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT n FROM " + TABLE + " WHERE id = ?" + suffix)) {
            s.setInt(1, row);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static void write(Connection c, int row, long n) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("UPDATE " + TABLE + " SET n = ? WHERE id = ?")) {
            s.setLong(1, n);
            s.setInt(2, row);
            s.executeUpdate();
        }
    }

    // --- Turnstile ---

    private Scenario.Result engineScenario(String name, int threadCount, boolean shareObject, boolean fetchEveryTime)
            throws Exception {
        ObjectStore os = engine.session("bench").objectStore();
        UUID shared = newObject(os);
        int perThread = ops / threadCount;
        int warmup = Math.max(10, perThread / 10);
        List<UUID> ids = new ArrayList<>();
        EngineStatistics[] before = new EngineStatistics[1];
        long[] timing = Scenario.run(threadCount, perThread, warmup, thread -> {
            UUID id = shareObject ? shared : newObject(os);
            synchronized (ids) {
                if (!ids.contains(id)) {
                    ids.add(id);
                }
            }
            ObjectStore mine = engine.session("bench" + thread).objectStore();
            PropertyFilter filter = PropertyFilter.of("N");
            CustomObject[] o = {mine.fetchCustomObject(CLASS_NAME, id, filter)};
            return () -> {
                if (before[0] == null) {
                    synchronized (before) {
                        if (before[0] == null) {
                            before[0] = engine.statistics();
                        }
                    }
                }
                while (true) {
                    if (fetchEveryTime) {
                        o[0] = mine.fetchCustomObject(CLASS_NAME, id, filter);
                    }
                    o[0].getProperties().putValue("N", o[0].getProperties().getInt64Value("N") + 1);
                    try {
                        o[0].save(RefreshMode.REFRESH);
                        return;
                    } catch (EngineRuntimeException e) {
                        if (e.getExceptionCode() != ExceptionCode.E_OBJECT_MODIFIED) {
                            throw e;
                        }
                        Scenario.CONFLICTS.incrementAndGet();
                        o[0].refresh(filter);
                    }
                }
            };
        });
        EngineStatistics used = engine.statistics().since(before[0]);
        long expected = (long) threadCount * (perThread + warmup);
        long actual = 0;
        for (UUID id : ids) {
            actual += os.fetchCustomObject(CLASS_NAME, id, PropertyFilter.ALL).getProperties().getInt64Value("N");
        }
        // Counted from the first warm-up increment, so divide by every increment made.
        String statements = String.format(Locale.ROOT, "%.2f", (double) used.statements() / expected);
        return new Scenario.Result(name, threadCount, (long) threadCount * perThread, timing[0], timing[1],
                expected - actual, statements);
    }

    /** Each increment is {@link Locking#withLock}: lock (retrying by the policy), then update + unlock. */
    private Scenario.Result lockScenario(String name, int threadCount, boolean shareObject) throws Exception {
        ObjectStore os = engine.session("bench").objectStore();
        UUID shared = newObject(os);
        int perThread = ops / threadCount;
        int warmup = Math.max(10, perThread / 10);
        List<UUID> ids = new ArrayList<>();
        RetryPolicy policy = engine.retryPolicies().get(LOCK_POLICY);
        long attemptsBefore = policy.metrics().attempts();
        EngineStatistics before = engine.statistics();
        long[] timing = Scenario.run(threadCount, perThread, warmup, thread -> {
            UUID id = shareObject ? shared : newObject(os);
            synchronized (ids) {
                if (!ids.contains(id)) {
                    ids.add(id);
                }
            }
            String user = "locker" + thread;
            CustomObject o = engine.session(user).objectStore().getCustomObject(CLASS_NAME, id);
            return () -> Locking.withLock(o, 30, user, policy, locked -> {
                locked.getProperties().putValue("N", locked.getProperties().getInt64Value("N") + 1);
                return null;
            });
        });
        long expected = (long) threadCount * (perThread + warmup);
        long conflicts = policy.metrics().attempts() - attemptsBefore - expected;
        EngineStatistics used = engine.statistics().since(before);
        long actual = 0;
        for (UUID id : ids) {
            actual += os.fetchCustomObject(CLASS_NAME, id, PropertyFilter.ALL).getProperties().getInt64Value("N");
        }
        String statements = String.format(Locale.ROOT, "%.2f", (double) used.statements() / expected);
        return new Scenario.Result(name, threadCount, (long) threadCount * perThread, timing[0], conflicts,
                expected - actual, statements);
    }

    private static UUID newObject(ObjectStore os) {
        CustomObject o = os.createCustomObject(CLASS_NAME);
        o.getProperties().putValue("N", 0L);
        o.save(RefreshMode.REFRESH);
        return o.getId();
    }

    private long readRow(int row) throws SQLException {
        try (Connection c = database.connect()) {
            return select(c, row, "");
        }
    }
}
