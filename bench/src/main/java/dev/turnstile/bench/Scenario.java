package dev.turnstile.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** Runs one benchmark scenario on N threads behind a start gate and reports time per operation. */
final class Scenario {
    /** One thread's work: {@link #increment()} does one successful increment, however many tries it takes. */
    interface Worker {
        void increment() throws Exception;

        /** Releases what {@link WorkerFactory#create} opened (a connection). */
        default void release() throws Exception {
        }
    }

    interface WorkerFactory {
        Worker create(int thread) throws Exception;
    }

    record Result(String name, int threads, long ops, long nanos, long conflicts, long lostUpdates, String statementsPerOp) {
        double opsPerSecond() {
            return ops * 1e9 / nanos;
        }

        double microsPerOp() {
            return nanos / 1e3 / ops;
        }

        String row(Result floor) {
            return String.format(Locale.ROOT, "| %s | %d | %,.0f | %,.1f | %.2f× | %s | %,d | %,d |", name, threads,
                    opsPerSecond(), microsPerOp(), microsPerOp() / floor.microsPerOp(), statementsPerOp, conflicts, lostUpdates);
        }
    }

    static final AtomicLong CONFLICTS = new AtomicLong();

    private Scenario() {
    }

    /** Runs {@code opsPerThread} increments on each of {@code threads} threads after a warm-up. */
    static long[] run(int threads, int opsPerThread, int warmupPerThread, WorkerFactory factory) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Worker> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                workers.add(factory.create(t));
            }
            runAll(pool, workers, warmupPerThread);
            CONFLICTS.set(0);
            long start = System.nanoTime();
            runAll(pool, workers, opsPerThread);
            long nanos = System.nanoTime() - start;
            for (Worker w : workers) {
                w.release();
            }
            return new long[] {nanos, CONFLICTS.get()};
        } finally {
            pool.shutdownNow();
        }
    }

    private static void runAll(ExecutorService pool, List<Worker> workers, int ops) throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        for (Worker w : workers) {
            futures.add(pool.submit(() -> {
                gate.await();
                for (int i = 0; i < ops; i++) {
                    w.increment();
                }
                return null;
            }));
        }
        gate.countDown();
        for (Future<?> f : futures) {
            f.get(30, TimeUnit.MINUTES);
        }
    }
}
