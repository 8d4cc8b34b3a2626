package dev.turnstile.bench;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.retry.RetryPoliciesConfig;
import dev.turnstile.api.retry.RetryPolicyConfig;
import dev.turnstile.api.treelock.TreeLockHandle;
import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreeLocks;
import dev.turnstile.api.treelock.TreeLocksConfig;
import dev.turnstile.api.treelock.TreePath;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Tree locks against the article's design ({@link SeedTreeLock}: one global lock, walks up and
 * down the tree, 500 ms sleeps) and the database floor, in one run on one database: hand-over
 * latency from unlock to the waiter's grant, lock+unlock pairs per second on non-conflicting
 * benches, and acquire time as the tree grows with 1,000 locks held.
 */
@Command(name = "treelocks", mixinStandardHelpOptions = true,
        description = "Tree locks against the seed's global-lock design and the database floor.")
final class TreeLockBenchmark implements Callable<Integer> {
    @Mixin
    BenchDatabase database;

    @Option(names = "--seconds", defaultValue = "3", description = "seconds per throughput cell (default ${DEFAULT-VALUE})")
    int seconds;

    @Option(names = "--threads", split = ",", defaultValue = "1,4,16", description = "thread counts (default ${DEFAULT-VALUE})")
    List<Integer> threadCounts;

    @Option(names = "--handovers", defaultValue = "200", description = "hand-overs measured (default ${DEFAULT-VALUE})")
    int handovers;

    @Option(names = "--sizes", split = ",", defaultValue = "1000,10000,100000,1000000",
            description = "tree sizes in nodes (default ${DEFAULT-VALUE})")
    List<Integer> sizes;

    @Option(names = "--held", defaultValue = "1000", description = "locks held while acquire time is measured (default ${DEFAULT-VALUE})")
    int held;

    @Option(names = "--holder", hidden = true, description = "run as the other process of the hand-over: hold this node or the row on command")
    String holderOf;

    @Override
    public Integer call() throws Exception {
        TreeLockHandOvers handOvers = new TreeLockHandOvers(database, handovers);
        if (holderOf != null) {
            return handOvers.runHolder(TreePath.parse(holderOf));
        }
        try (ContentEngine engine = ContentEngine.open(database.engineConfig(24));
             Connection c = database.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS ts_bench_tree_floor (node_path VARCHAR(512) PRIMARY KEY)");
            s.execute("CREATE TABLE IF NOT EXISTS ts_bench_handover (id INT PRIMARY KEY)");
            s.execute("DELETE FROM ts_bench_handover");
            s.execute("INSERT INTO ts_bench_handover VALUES (1)");
            c.commit();
            System.out.printf(Locale.ROOT, "tree lock benchmark on %s%n%n", database.url());
            handOvers.inOneProcess(engine.treeLocks());
            handOvers.acrossProcesses(engine.treeLocks());
            throughput(engine.treeLocks());
            treeSize(engine.treeLocks());
        }
        return 0;
    }

    // ---- throughput -----------------------------------------------------------------------

    private void throughput(TreeLocks locks) throws Exception {
        System.out.printf(Locale.ROOT, "Lock+unlock pairs per second on non-conflicting benches (4 workshops), %d s per cell:%n", seconds);
        System.out.println("| threads | JDBC floor (INSERT+COMMIT, DELETE+COMMIT) | Turnstile | seed design (in memory) | Turnstile / floor"
                + " | Turnstile, another engine waiting in another site |");
        System.out.println("|---|---|---|---|---|---|");
        for (int threads : threadCounts) {
            TreePath site = site("pairs");
            double floor = perSecond(threads, t -> {
                Connection c = database.connect();
                String path = bench(site, t).toString();
                return () -> floorPair(c, path);
            });
            double ours = perSecond(threads, t -> {
                TreeLockRequest r = TreeLockRequest.exclusive(bench(site, t));
                return () -> locks.tryLock(r, Duration.ofSeconds(10)).orElseThrow().unlock();
            });
            SeedTreeLock seed = new SeedTreeLock();
            double seedRate = perSecond(threads, t -> {
                Set<TreePath> nodes = Set.of(bench(site, t));
                return () -> seed.unlock(seed.tryLock(nodes, -1));
            });
            // Only PostgreSQL's releases tell other processes (NOTIFY); elsewhere a waiter in another engine
            // polls by its policy (five minutes here), which the cell would wait out.
            String besideWaiter = "— (no notes)";
            if (database.url().startsWith("jdbc:postgresql:")) {
                try (WaiterElsewhere w = new WaiterElsewhere(locks)) {
                    besideWaiter = String.format(Locale.ROOT, "%,.0f", perSecond(threads, t -> {
                        TreeLockRequest r = TreeLockRequest.exclusive(bench(site, t));
                        return () -> locks.tryLock(r, Duration.ofSeconds(10)).orElseThrow().unlock();
                    }));
                }
            }
            System.out.printf(Locale.ROOT, "| %d | %,.0f | %,.0f | %,.0f | %.2f | %s |%n", threads, floor, ours, seedRate,
                    ours / floor, besideWaiter);
        }
        System.out.println();
    }

    /**
     * Another engine on the database (another process, as far as notes go) waiting, with a policy
     * that polls every five minutes, for a bench of another site that {@code locks} holds: releases
     * that tell it of sites it does not wait in cost a NOTIFY each, and the database-wide lock that
     * holds to the end of the commit. Closing it releases the bench and lets the waiter finish.
     */
    private final class WaiterElsewhere implements AutoCloseable {
        private final TreeLockHandle held;
        private final ContentEngine other;
        private final Future<?> waiting;
        private final ExecutorService thread = Executors.newSingleThreadExecutor();

        WaiterElsewhere(TreeLocks locks) throws InterruptedException {
            TreePath bench = site("elsewhere").child("workshop", "A").child("bench", "1");
            held = locks.lock(Set.of(bench), Duration.ZERO);
            other = ContentEngine.open(EngineConfig.from(database.engineConfig(2))
                    .retry(RetryPoliciesConfig.builder().policy("bench-slow-poll", RetryPolicyConfig.builder().maxAttempts(100).waitDuration(Duration.ofMinutes(5)).build()).build())
                    .treeLocks(TreeLocksConfig.builder().retryPolicy("bench-slow-poll").build()).build());
            TreeLocks its = other.session("waiter elsewhere").treeLocks();
            waiting = thread.submit(() -> {
                its.lock(Set.of(bench), Duration.ofMinutes(10)).unlock();
                return null;
            });
            Thread.sleep(500); // refused, it has said it waits
        }

        @Override
        public void close() throws Exception {
            held.unlock();
            try {
                waiting.get(60, TimeUnit.SECONDS);
            } finally {
                thread.shutdownNow();
                other.close();
            }
        }
    }

    private static TreePath bench(TreePath site, int thread) {
        return site.child("workshop", "W" + thread % 4).child("bench", "B" + thread);
    }

    private static void floorPair(Connection c, String path) throws Exception {
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO ts_bench_tree_floor (node_path) VALUES (?)");
             PreparedStatement delete = c.prepareStatement("DELETE FROM ts_bench_tree_floor WHERE node_path = ?")) {
            insert.setString(1, path);
            insert.executeUpdate();
            c.commit();
            delete.setString(1, path);
            delete.executeUpdate();
            c.commit();
        }
    }

    interface Pair {
        void run() throws Exception;
    }

    interface PairFactory {
        Pair forThread(int thread) throws Exception;
    }

    private double perSecond(int threads, PairFactory factory) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong pairs = new AtomicLong();
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Pair pair = factory.forThread(t);
                futures.add(pool.submit(() -> {
                    while (!stop.get()) {
                        pair.run();
                        pairs.incrementAndGet();
                    }
                    return null;
                }));
            }
            Thread.sleep(500); // warm-up
            long start = System.nanoTime();
            long before = pairs.get();
            Thread.sleep(seconds * 1000L);
            double rate = (pairs.get() - before) / ((System.nanoTime() - start) / 1e9);
            stop.set(true);
            for (Future<?> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
            return rate;
        } finally {
            pool.shutdownNow();
        }
    }

    // ---- acquire time by tree size ----------------------------------------------------------

    private void treeSize(TreeLocks locks) throws Exception {
        System.out.printf(Locale.ROOT, "Acquire time as the tree grows, up to %d locks held on operations of workshops 0-4;"
                + " acquiring workshops 5-9 and their operations (µs, median of 200):%n", held);
        System.out.println("| tree nodes | locks held | Turnstile: workshop | Turnstile: operation | seed: workshop | seed: operation |");
        System.out.println("|---|---|---|---|---|---|");
        for (int size : sizes) {
            TreePath site = site("size" + size);
            int benches = Math.max(1, size / 100);
            List<TreePath> nodes = tree(site, benches);
            populate(nodes);
            Random random = new Random(size);
            List<TreeLockHandle> ourHeld = new ArrayList<>();
            SeedTreeLock seed = new SeedTreeLock();
            nodes.forEach(seed::node);
            // Distinct operations (a small tree has fewer than --held of them in workshops 0-4: all of them then).
            Set<TreePath> toHold = new java.util.LinkedHashSet<>();
            while (toHold.size() < Math.min(held, 5 * benches * 10)) {
                toHold.add(operation(site, random.nextInt(5), random.nextInt(benches), random.nextInt(10)));
            }
            for (TreePath op : toHold) {
                ourHeld.add(locks.tryLock(TreeLockRequest.exclusive(op)).orElseThrow());
                seed.tryLock(Set.of(op), 0);
            }
            long[] ourWorkshop = new long[200];
            long[] ourOperation = new long[200];
            long[] seedWorkshop = new long[200];
            long[] seedOperation = new long[200];
            for (int i = 0; i < 200; i++) {
                TreePath w = site.child("workshop", "W" + (5 + random.nextInt(5)));
                TreePath op = operation(site, 5 + random.nextInt(5), random.nextInt(benches), random.nextInt(10));
                ourWorkshop[i] = timeOurs(locks, w);
                ourOperation[i] = timeOurs(locks, op);
                seedWorkshop[i] = timeSeed(seed, w);
                seedOperation[i] = timeSeed(seed, op);
            }
            ourHeld.forEach(TreeLockHandle::unlock);
            System.out.printf(Locale.ROOT, "| %,d | %,d | %.0f | %.0f | %.0f | %.0f |%n", nodes.size(), toHold.size(),
                    micros(ourWorkshop), micros(ourOperation), micros(seedWorkshop), micros(seedOperation));
            try (Connection c = database.connect(); PreparedStatement d = c.prepareStatement("DELETE FROM ts_tree_node WHERE node_path LIKE ?")) {
                d.setString(1, site + "%");
                d.executeUpdate();
                c.commit();
            }
        }
    }

    private static List<TreePath> tree(TreePath site, int benches) {
        List<TreePath> nodes = new ArrayList<>();
        nodes.add(site);
        for (int w = 0; w < 10; w++) {
            TreePath workshop = site.child("workshop", "W" + w);
            nodes.add(workshop);
            for (int b = 0; b < benches; b++) {
                TreePath bench = workshop.child("bench", "B" + b);
                nodes.add(bench);
                for (int o = 0; o < 10; o++) {
                    nodes.add(bench.child("operation", "O" + o));
                }
            }
        }
        return nodes;
    }

    private static TreePath operation(TreePath site, int workshop, int bench, int operation) {
        return site.child("workshop", "W" + workshop).child("bench", "B" + bench).child("operation", "O" + operation);
    }

    /** Gives every node of the tree its row, as if each had been locked once: the table as big as the tree. */
    private void populate(List<TreePath> nodes) throws Exception {
        try (Connection c = database.connect(); PreparedStatement insert = c.prepareStatement("INSERT INTO ts_tree_node"
                + " (node_path, usn, is_count, ix_count, s_count, six_count, x_count) VALUES (?, 0, 0, 0, 0, 0, 0)")) {
            int n = 0;
            for (TreePath p : nodes) {
                insert.setString(1, p.toString());
                insert.addBatch();
                if (++n % 5000 == 0) {
                    insert.executeBatch();
                    c.commit();
                }
            }
            insert.executeBatch();
            c.commit();
        }
    }

    private static long timeOurs(TreeLocks locks, TreePath node) {
        long start = System.nanoTime();
        TreeLockHandle h = locks.tryLock(TreeLockRequest.exclusive(node)).orElseThrow();
        long took = System.nanoTime() - start;
        h.unlock();
        return took;
    }

    private static long timeSeed(SeedTreeLock seed, TreePath node) throws InterruptedException {
        long start = System.nanoTime();
        List<SeedTreeLock.Node> h = seed.tryLock(Set.of(node), 0);
        long took = System.nanoTime() - start;
        seed.unlock(h);
        return took;
    }

    private static double micros(long[] nanos) {
        return new Percentiles(nanos).millis(0.5) * 1e3;
    }

    static TreePath site(String name) {
        return TreePath.root("site", name + "-" + UUID.randomUUID().toString().substring(0, 8));
    }
}
