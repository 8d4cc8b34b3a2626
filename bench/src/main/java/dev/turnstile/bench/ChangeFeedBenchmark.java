package dev.turnstile.bench;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.changes.ChangeDispatcher;
import dev.turnstile.api.changes.ChangeFeed;
import dev.turnstile.api.changes.ChangeFilter;
import dev.turnstile.api.changes.ChangesConfig;
import dev.turnstile.api.changes.DeliveryMode;
import dev.turnstile.api.changes.DispatcherConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The change feed in one run on one database: change-deliveries per second with 1, 2 and 4
 * dispatchers to 10 and 100 queue clients, beside the plain-JDBC floor (one INSERT … SELECT of the
 * batch into a queue table and one position UPDATE per client batch) and the naive dispatcher (one
 * change per pass, no coalescing); dispatch lag under a steady write load; and the deliveries
 * coalescing saves on a bot's bursts.
 */
@Command(name = "changes", mixinStandardHelpOptions = true,
        description = "Change feed dispatch rate, lag and coalescing, beside the JDBC floor and a naive dispatcher.")
final class ChangeFeedBenchmark implements Callable<Integer> {
    @Mixin
    BenchDatabase database;

    @Option(names = "--changes", defaultValue = "1000", description = "changes written per rate cell (default ${DEFAULT-VALUE})")
    int changes;

    @Option(names = "--dispatchers", split = ",", defaultValue = "1,2,4", description = "dispatcher counts (default ${DEFAULT-VALUE})")
    List<Integer> dispatcherCounts;

    @Option(names = "--clients", split = ",", defaultValue = "10,100", description = "client counts (default ${DEFAULT-VALUE})")
    List<Integer> clientCounts;

    @Option(names = "--write-rate", defaultValue = "100", description = "saves per second in the lag run (default ${DEFAULT-VALUE})")
    int writeRate;

    @Option(names = "--seconds", defaultValue = "10", description = "length of the lag run (default ${DEFAULT-VALUE})")
    int seconds;

    @Option(names = "--writer-of", hidden = true, description = "run as the writing process of the cross-process lag: save objects of this class")
    String writerOf;

    private String cls;
    private ObjectStore os;
    private List<CustomObject> objects;

    @Override
    public Integer call() throws Exception {
        if (writerOf != null) {
            return runWriter();
        }
        try (ContentEngine engine = ContentEngine.open(dev.turnstile.api.EngineConfig.from(database.engineConfig(20))
                .changes(ChangesConfig.of(true)).build())) {
            ChangeFeed feed = engine.changes();
            cls = "BenchFeed" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
            os = engine.session("writer").objectStore();
            os.defineClass(cls, c -> c.string("Title").integer32("Views"));
            objects = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                objects.add(save(os.createCustomObject(cls), i));
            }
            try (Connection c = database.connect(); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS ts_bench_floor_queue (client_name VARCHAR(64), change_id BIGINT, prop_changes VARCHAR(4000))");
                s.execute("CREATE TABLE IF NOT EXISTS ts_bench_floor_client (client_name VARCHAR(64) PRIMARY KEY, feed_position BIGINT)");
                c.commit();
            }
            System.out.printf(Locale.ROOT, "change feed benchmark on %s%n%n", database.url());
            rates(feed);
            System.out.printf(Locale.ROOT, "Dispatch lag, save → callback (ms), under %d saves/s for %d s, 10 callback clients,"
                    + " 2 dispatchers:%n%n", writeRate, seconds);
            System.out.println("| saved in | dispatchers' idle delay | saves | deliveries | p50 | p99 |");
            System.out.println("|---|---|---|---|---|---|");
            lag(feed);
            for (Duration idle : List.of(DispatcherConfig.DEFAULT_IDLE_DELAY, Duration.ofSeconds(1))) {
                lagAcrossProcesses(feed, idle);
            }
            System.out.println();
            coalescing(feed);
        }
        return 0;
    }

    private CustomObject save(CustomObject o, int i) {
        o.getProperties().putValue("Title", "t" + i);
        o.getProperties().putValue("Views", i);
        o.setUpdateSequenceNumber(null);
        o.save(RefreshMode.NO_REFRESH);
        return o;
    }

    private void writeChanges(int n) {
        for (int i = 0; i < n; i++) {
            save(objects.get(i % objects.size()), i);
        }
    }

    // ---- dispatch rate --------------------------------------------------------------------

    private void rates(ChangeFeed feed) throws Exception {
        System.out.printf(Locale.ROOT, "Change-deliveries per second (changes × clients / time to bring every client up to date),"
                + " %,d changes by rotating writes to 50 objects:%n", changes);
        rate(feed, 10, 1, DispatcherConfig.ofDefaults(), changes); // warm-up, not shown
        floorRate(feed, 10, 1);
        System.out.println("| clients | dispatchers | JDBC floor | Turnstile (batch 100, coalescing) | naive (1 change per pass) | Turnstile / floor |");
        System.out.println("|---|---|---|---|---|---|");
        for (int clients : clientCounts) {
            for (int dispatchers : dispatcherCounts) {
                double floor = floorRate(feed, clients, dispatchers);
                double ours = rate(feed, clients, dispatchers, DispatcherConfig.ofDefaults(), changes);
                String naive = clients > 10 ? "—" : String.format(Locale.ROOT, "%,.0f", rate(feed, clients, dispatchers,
                        DispatcherConfig.builder().batchSize(1).coalesce(false).build(), Math.min(changes, 300)));
                System.out.printf(Locale.ROOT, "| %d | %d | %,.0f | %,.0f | %s | %.2f |%n", clients, dispatchers, floor, ours, naive, ours / floor);
            }
        }
        System.out.println();
    }

    private double rate(ChangeFeed feed, int clients, int dispatchers, DispatcherConfig config, int n) throws Exception {
        List<String> names = register(feed, clients, DeliveryMode.QUEUE);
        try {
            writeChanges(n);
            long start = System.nanoTime();
            runUntilCaughtUp(feed, names, dispatchers, config);
            return (double) n * clients / ((System.nanoTime() - start) / 1e9);
        } finally {
            names.forEach(feed::unregisterClient);
        }
    }

    private static void runUntilCaughtUp(ChangeFeed feed, List<String> names, int dispatchers, DispatcherConfig config)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(dispatchers);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int d = 0; d < dispatchers; d++) {
                ChangeDispatcher dispatcher = feed.dispatcher(config);
                running.add(pool.submit(() -> {
                    int idle = 0;
                    while (idle < 3) { // three idle passes in a row: nothing left that this one may serve
                        idle = dispatcher.runOnce().isIdle() ? idle + 1 : 0;
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get(30, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        for (String n : names) {
            if (feed.lag(n).pending() != 0) {
                throw new IllegalStateException(n + " is not caught up");
            }
        }
    }

    private List<String> register(ChangeFeed feed, int clients, DeliveryMode mode) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            String name = "bench-" + UUID.randomUUID().toString().substring(0, 8) + "-" + i;
            feed.registerClient(name, ChangeFilter.classes(cls), mode);
            names.add(name);
        }
        return names;
    }

    /** The floor: per client and batch of 100, one INSERT … SELECT into a queue table and one UPDATE of its position. */
    private double floorRate(ChangeFeed feed, int clients, int threads) throws Exception {
        long head;
        try (Connection c = database.connect(); Statement s = c.createStatement()) {
            s.execute("DELETE FROM ts_bench_floor_queue");
            s.execute("DELETE FROM ts_bench_floor_client");
            c.commit();
        }
        // Sequenced changes to copy: let a throwaway client sequence them.
        List<String> names = register(feed, 1, DeliveryMode.CALLBACK);
        writeChanges(changes);
        feed.lag(names.get(0));
        feed.dispatcher(DispatcherConfig.ofDefaults()).runOnce(); // sequences the batch (the client has no subscriber here)
        try (Connection c = database.connect(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT MAX(feed_position) FROM ts_change")) {
            r.next();
            head = r.getLong(1);
        }
        long from = head - changes;
        names.forEach(feed::unregisterClient);
        try (Connection c = database.connect(); PreparedStatement p = c.prepareStatement("INSERT INTO ts_bench_floor_client VALUES (?, ?)")) {
            for (int i = 0; i < clients; i++) {
                p.setString(1, "floor-" + i);
                p.setLong(2, from);
                p.addBatch();
            }
            p.executeBatch();
            c.commit();
        }
        AtomicLong next = new AtomicLong();
        long start = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                running.add(pool.submit(() -> {
                    try (Connection c = database.connect();
                         PreparedStatement copy = c.prepareStatement("INSERT INTO ts_bench_floor_queue SELECT ?, change_id, prop_changes"
                                 + " FROM ts_change WHERE feed_position > ? AND feed_position <= ?");
                         PreparedStatement move = c.prepareStatement("UPDATE ts_bench_floor_client SET feed_position = ? WHERE client_name = ?")) {
                        for (long i; (i = next.getAndIncrement()) < clients; ) {
                            for (long p = from; p < head; p += 100) {
                                long to = Math.min(head, p + 100);
                                copy.setString(1, "floor-" + i);
                                copy.setLong(2, p);
                                copy.setLong(3, to);
                                copy.executeUpdate();
                                move.setLong(1, to);
                                move.setString(2, "floor-" + i);
                                move.executeUpdate();
                                c.commit();
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get(30, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        return (double) changes * clients / ((System.nanoTime() - start) / 1e9);
    }

    // ---- lag ------------------------------------------------------------------------------

    private void lag(ChangeFeed feed) throws Exception {
        measureLag(feed, Duration.ofMillis(10), "this process", lags -> String.valueOf(saveAtWriteRate(objects)));
    }

    /** What writes the saves of a lag cell; given the lags collected so far, returns how many saves it made. */
    private interface LagWriter {
        String write(List<Long> lags) throws Exception;
    }

    /**
     * One lag cell: 10 callback clients served by 2 started dispatchers with {@code idleDelay} while
     * {@code writer} saves, until every client has caught up; prints the lag's percentiles as a table row.
     */
    private void measureLag(ChangeFeed feed, Duration idleDelay, String what, LagWriter writer) throws Exception {
        List<String> names = register(feed, 10, DeliveryMode.CALLBACK);
        List<Long> lags = subscribeForLags(feed, names);
        List<ChangeDispatcher> dispatchers = List.of(feed.dispatcher(DispatcherConfig.builder().idleDelay(idleDelay).build()),
                feed.dispatcher(DispatcherConfig.builder().idleDelay(idleDelay).build()));
        dispatchers.forEach(ChangeDispatcher::start);
        String written;
        try {
            written = writer.write(lags);
            awaitCaughtUp(feed, names);
        } finally {
            dispatchers.forEach(ChangeDispatcher::stop);
            names.forEach(feed::unregisterClient);
        }
        Percentiles p = new Percentiles(lags.stream().mapToLong(Long::longValue).toArray());
        System.out.printf(Locale.ROOT, "| %s | %d ms | %s | %d | %.1f | %.1f |%n", what, idleDelay.toMillis(), written, p.count(),
                p.millis(0.5), p.millis(0.99));
    }

    /** Subscribes each client; the returned list collects each delivered change's lag (ns from its save). */
    private static List<Long> subscribeForLags(ChangeFeed feed, List<String> names) {
        List<Long> lags = Collections.synchronizedList(new ArrayList<>());
        for (String n : names) {
            feed.subscribe(n, (client, batch) -> {
                Instant now = Instant.now();
                batch.forEach(c -> lags.add(Duration.between(c.time(), now).toNanos()));
            });
        }
        return lags;
    }

    /** Saves {@code targets} in turn, {@link #writeRate} a second for {@link #seconds}; returns how many. */
    private int saveAtWriteRate(List<CustomObject> targets) throws InterruptedException {
        long period = 1_000_000_000L / writeRate;
        long start = System.nanoTime();
        int written = 0;
        while (System.nanoTime() - start < seconds * 1_000_000_000L) {
            save(targets.get(written % targets.size()), written);
            written++;
            long wait = start + written * period - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
        }
        return written;
    }

    private static void awaitCaughtUp(ChangeFeed feed, List<String> names) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (names.stream().anyMatch(n -> feed.lag(n).pending() > 0) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
    }

    /**
     * As {@link #lag}, the saves made by a child JVM: on PostgreSQL each change's INSERT wakes the
     * idle dispatchers here (NOTIFY); elsewhere they find it after their idle delay.
     */
    private void lagAcrossProcesses(ChangeFeed feed, Duration idleDelay) throws Exception {
        measureLag(feed, idleDelay, "another process", lags -> {
            ChildProcesses writer = new ChildProcesses(List.of(List.of("changes", "--writer-of", cls, "--write-rate", "" + writeRate,
                    "--seconds", "" + seconds, "--url", database.url(1), "--user", database.user(), "--password", database.password())));
            writer.readyThenGo();
            lags.clear(); // the writer's own set-up and warm-up saves are not counted
            String written = ChildProcesses.expect(writer.outputs().get(0), "DONE ").substring(5);
            writer.awaitExit();
            return written;
        });
    }

    /** The child of {@link #lagAcrossProcesses}: after GO, saves objects of {@link #writerOf} at the write rate. */
    private int runWriter() throws Exception {
        java.io.BufferedReader commands = new java.io.BufferedReader(new java.io.InputStreamReader(System.in,
                java.nio.charset.StandardCharsets.UTF_8));
        try (ContentEngine engine = ContentEngine.open(dev.turnstile.api.EngineConfig.from(database.engineConfig(2))
                .changes(ChangesConfig.of(true)).build())) {
            ObjectStore writer = engine.session("other-writer").objectStore();
            List<CustomObject> mine = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                mine.add(save(writer.createCustomObject(writerOf), i));
            }
            for (int i = 0; i < 200; i++) { // warm-up
                save(mine.get(i % mine.size()), i);
            }
            System.out.println("READY");
            System.out.flush();
            commands.readLine();
            System.out.println("DONE " + saveAtWriteRate(mine));
            System.out.flush();
        }
        return 0;
    }

    // ---- coalescing -----------------------------------------------------------------------

    private void coalescing(ChangeFeed feed) throws Exception {
        List<String> with = register(feed, 1, DeliveryMode.QUEUE);
        List<String> without = register(feed, 1, DeliveryMode.CALLBACK);
        AtomicLong plain = new AtomicLong();
        try {
            int bursts = 100;
            for (int b = 0; b < bursts; b++) {
                CustomObject o = objects.get(b % objects.size());
                for (int i = 0; i < 10; i++) {
                    save(o, b * 10 + i);
                }
                save(objects.get((b + objects.size() / 2) % objects.size()), b); // an edit to another object between bursts
            }
            runUntilCaughtUp(feed, with, 1, DispatcherConfig.ofDefaults()); // serves only the queue client
            long coalesced = feed.lag(with.get(0)).position() > 0 ? feed.poll(with.get(0), 100_000).size() : 0;
            feed.subscribe(without.get(0), (client, batch) -> plain.addAndGet(batch.size()));
            runUntilCaughtUp(feed, without, 1, DispatcherConfig.builder().coalesce(false).build());
            System.out.printf(Locale.ROOT, "Coalescing on a bot's bursts (%d bursts of 10 saves to one object, another object's save"
                            + " between bursts; %d changes): %d deliveries with coalescing, %d without (%.1f× fewer)%n",
                    bursts, bursts * 11, coalesced, plain.get(), (double) plain.get() / coalesced);
        } finally {
            with.forEach(feed::unregisterClient);
            without.forEach(feed::unregisterClient);
        }
    }
}
