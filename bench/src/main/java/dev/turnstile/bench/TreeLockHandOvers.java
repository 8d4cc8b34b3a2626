package dev.turnstile.bench;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.treelock.TreeLockHandle;
import dev.turnstile.api.treelock.TreeLocks;
import dev.turnstile.api.treelock.TreePath;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The tree lock benchmark's hand-over latencies: from a holder's unlock to the waiting request's
 * grant, in one process and from another process, beside the database's row lock (the floor) and,
 * in one process, the seed's global-lock design.
 */
final class TreeLockHandOvers {
    private final BenchDatabase database;
    private final int handovers;

    TreeLockHandOvers(BenchDatabase database, int handovers) {
        this.database = database;
        this.handovers = handovers;
    }

    /** Unlock → waiter's grant, both here: Turnstile's, the database row lock's (the floor) and the seed design's. */
    void inOneProcess(TreeLocks locks) throws Exception {
        TreePath bench = TreeLockBenchmark.site("handover").child("workshop", "A").child("bench", "1");
        long[] ours = new long[handovers];
        long[] floor = new long[handovers];
        long[] seed = new long[5];
        ExecutorService waiter = Executors.newSingleThreadExecutor();
        try {
            for (int i = 0; i < 2 * handovers; i++) { // the first half warms the JIT up and is not counted
                long nanos = ourHandOver(locks, bench, waiter);
                if (i >= handovers) {
                    ours[i - handovers] = nanos;
                }
            }
            for (int i = 0; i < handovers; i++) {
                floor[i] = rowLockHandOver(waiter);
            }
            SeedTreeLock seedLock = new SeedTreeLock();
            for (int i = 0; i < seed.length; i++) {
                List<SeedTreeLock.Node> holder = seedLock.tryLock(Set.of(bench), -1);
                Future<Long> granted = waiter.submit(() -> {
                    List<SeedTreeLock.Node> h = seedLock.tryLock(Set.of(bench), -1);
                    long at = System.nanoTime();
                    seedLock.unlock(h);
                    return at;
                });
                Thread.sleep(5);
                long released = System.nanoTime();
                seedLock.unlock(holder);
                seed[i] = granted.get() - released;
            }
        } finally {
            waiter.shutdownNow();
        }
        latencyTable("Hand-over latency, unlock → waiter's grant, one process (ms):", floor, ours);
        row("seed design (global lock, 500 ms sleeps)", seed);
        System.out.println();
    }

    /**
     * As {@link #inOneProcess}, the holder in a child JVM on the same database: it takes the bench (or
     * the floor's row lock) on "LOCK" / "ROW", and on "RELEASE" notes System.nanoTime (one clock for
     * every process on this machine) and lets go.
     */
    void acrossProcesses(TreeLocks locks) throws Exception {
        TreePath bench = TreeLockBenchmark.site("handover-processes").child("workshop", "A").child("bench", "1");
        long[] ours = new long[handovers];
        long[] floor = new long[handovers];
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), Bench.class.getName(), "treelocks", "--holder", bench.toString(),
                "--url", database.url(), "--user", database.user(), "--password", database.password())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        ExecutorService waiter = Executors.newSingleThreadExecutor();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
             PrintStream in = new PrintStream(child.getOutputStream(), true, StandardCharsets.UTF_8);
             Connection other = database.connect()) {
            for (int i = 0; i < 2 * handovers; i++) { // the first half warms both JVMs up and is not counted
                long nanos = handOverFrom(in, out, "LOCK", waiter, () -> {
                    locks.lock(Set.of(bench), Duration.ofSeconds(10)).unlock();
                    return null;
                });
                if (i >= handovers) {
                    ours[i - handovers] = nanos;
                }
            }
            for (int i = 0; i < handovers; i++) {
                floor[i] = handOverFrom(in, out, "ROW", waiter, () -> {
                    other.createStatement().executeQuery("SELECT id FROM ts_bench_handover WHERE id = 1 FOR UPDATE").close();
                    return null;
                });
                other.commit();
            }
            in.println("EXIT");
        } finally {
            waiter.shutdownNow();
            child.waitFor();
        }
        latencyTable("Hand-over latency, unlock in another process → waiter's grant here (ms):", floor, ours);
        System.out.println();
    }

    /** One hand-over from the child: it takes {@code what}, our waiter blocks on it, the child releases; grant minus release. */
    private static long handOverFrom(PrintStream in, BufferedReader out, String what, ExecutorService waiter,
                                     Callable<Void> take) throws Exception {
        in.println(what);
        expect(out, "LOCKED");
        Future<Long> granted = waiter.submit(() -> {
            take.call();
            return System.nanoTime();
        });
        Thread.sleep(5); // the waiter is refused, queues and waits
        in.println("RELEASE");
        String released = out.readLine();
        if (released == null || !released.startsWith("RELEASED ")) {
            throw new IllegalStateException("the holder process answered " + released);
        }
        return granted.get() - Long.parseLong(released.substring("RELEASED ".length()));
    }

    private static void expect(BufferedReader out, String line) throws Exception {
        String got = out.readLine();
        if (!line.equals(got)) {
            throw new IllegalStateException("the holder process answered " + got + ", not " + line);
        }
    }

    /** The child of {@link #acrossProcesses}: holds {@code bench} (or the floor's row) on command. */
    int runHolder(TreePath bench) throws Exception {
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (ContentEngine engine = ContentEngine.open(database.engineConfig(2)); Connection c = database.connect()) {
            TreeLockHandle held = null;
            for (String command; (command = commands.readLine()) != null && !command.equals("EXIT"); ) {
                switch (command) {
                    case "LOCK" -> held = engine.treeLocks().lock(Set.of(bench), Duration.ofSeconds(10));
                    case "ROW" -> c.createStatement().executeQuery("SELECT id FROM ts_bench_handover WHERE id = 1 FOR UPDATE").close();
                    case "RELEASE" -> {
                        long at = System.nanoTime();
                        if (held != null) {
                            held.unlock();
                            held = null;
                        } else {
                            c.commit();
                        }
                        System.out.println("RELEASED " + at);
                        System.out.flush();
                        continue;
                    }
                    default -> throw new IllegalArgumentException(command);
                }
                System.out.println("LOCKED");
                System.out.flush();
            }
        }
        return 0;
    }

    private static long ourHandOver(TreeLocks locks, TreePath bench, ExecutorService waiter) throws Exception {
        TreeLockHandle holder = locks.lock(Set.of(bench), Duration.ofSeconds(10));
        Future<Long> granted = waiter.submit(() -> {
            TreeLockHandle h = locks.lock(Set.of(bench), Duration.ofSeconds(10));
            long at = System.nanoTime();
            h.unlock();
            return at;
        });
        Thread.sleep(5); // the waiter is refused, queues and waits
        long released = System.nanoTime();
        holder.unlock();
        return granted.get() - released;
    }

    /** The floor: a waiter blocked on a row lock inside the database, released by the holder's commit. */
    private long rowLockHandOver(ExecutorService waiter) throws Exception {
        try (Connection holder = database.connect(); Connection other = database.connect()) {
            holder.createStatement().executeQuery("SELECT id FROM ts_bench_handover WHERE id = 1 FOR UPDATE").close();
            Future<Long> granted = waiter.submit(() -> {
                other.createStatement().executeQuery("SELECT id FROM ts_bench_handover WHERE id = 1 FOR UPDATE").close();
                long at = System.nanoTime();
                other.commit();
                return at;
            });
            Thread.sleep(5);
            long released = System.nanoTime();
            holder.commit();
            return granted.get() - released;
        }
    }

    /** A hand-over table's title, header and its floor and Turnstile rows. */
    private static void latencyTable(String title, long[] floor, long[] ours) {
        System.out.println(title);
        System.out.println("| | p50 | p99 | samples |");
        System.out.println("|---|---|---|---|");
        row("database row lock (SELECT … FOR UPDATE, commit) — floor", floor);
        row("Turnstile tree lock", ours);
    }

    private static void row(String name, long[] nanos) {
        Percentiles p = new Percentiles(nanos);
        System.out.printf(Locale.ROOT, "| %s | %.3f | %.3f | %d |%n", name, p.millis(0.5), p.millis(0.99), p.count());
    }
}
