package dev.turnstile.samples;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.EngineStatistics;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.dispenser.Dispenser;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.DispenserStrategy;
import dev.turnstile.api.retry.RetryMetrics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The "take a number" article as a demo: workers in one or several processes take numbers from one
 * dispenser, then every number is checked — no duplicate, no gap — and throughput, conflicts and
 * round trips per number are printed for the chosen strategy.
 */
@Command(name = "take-a-number", description = "Workers in one or several processes take numbers from one dispenser; checks no duplicate, no gap.")
final class TakeANumberCommand implements Callable<Integer> {
    @Mixin
    EngineOptions engineOptions;

    @Option(names = "--dispenser", defaultValue = "invoice", description = "dispenser name; created if missing (default ${DEFAULT-VALUE})")
    String dispenser;

    @Option(names = "--workers", defaultValue = "16", description = "threads per process (default ${DEFAULT-VALUE})")
    int workers;

    @Option(names = "--count", defaultValue = "10000", description = "numbers to take in all (default ${DEFAULT-VALUE})")
    int count;

    @Option(names = "--processes", defaultValue = "1", description = "processes, this one included (default ${DEFAULT-VALUE})")
    int processes;

    @Option(names = "--strategy", defaultValue = "COMBINING",
            description = "COOPERATIVE_LOCK, FIRST_WRITER_WINS, PESSIMISTIC or COMBINING (default ${DEFAULT-VALUE})")
    DispenserStrategy strategy;

    @Option(names = "--feeling-unlucky", description = "with FIRST_WRITER_WINS: fetch before every update")
    boolean feelingUnlucky;

    @Option(names = "--share", hidden = true, description = "for child processes: how many numbers this process takes")
    Integer childShare;

    @Override
    public Integer call() throws Exception {
        if (workers < 1 || count < 1 || processes < 1 || count < processes * workers) {
            System.err.println("--workers, --count and --processes must be at least 1, and --count at least processes × workers");
            return 2;
        }
        EngineConfig config = engineOptions.config();
        try (ContentEngine engine = ContentEngine.open(config)) {
            DispenserConfig settings = DispenserConfig.builder().strategy(strategy).feelingUnlucky(feelingUnlucky).build();
            if (childShare != null) {
                Dispenser d = engine.session("taker-" + ProcessHandle.current().pid()).dispensers().get(dispenser, settings);
                ChildProcess.readyAndWait();
                Taken taken = take(d, childShare, null);
                StringBuilder lines = new StringBuilder();
                taken.numbers.forEach(n -> lines.append("N ").append(n).append('\n'));
                taken.failures.forEach(f -> lines.append("F ").append(f.replace('\n', ' ')).append('\n'));
                System.out.print(lines);
                RetryMetrics m = engine.retryPolicies().get(settings.retryPolicy()).metrics();
                System.out.println("RESULT " + (m.attempts() - m.calls()) + " " + engine.statistics().statements());
                return 0;
            }
            return lead(engine, config, settings, System.out);
        }
    }

    private int lead(ContentEngine engine, EngineConfig config, DispenserConfig settings, PrintStream out) throws Exception {
        Dispenser d = ensureDispenser(engine, config, settings);
        long before = d.current();
        out.printf(Locale.ROOT, "take-a-number: %,d numbers from '%s' by %d process(es) × %d workers, strategy %s%s%n",
                count, dispenser, processes, workers, strategy, feelingUnlucky ? " (feeling unlucky)" : "");
        int share = count / processes;
        List<ChildProcess> children = new ArrayList<>();
        for (int i = 1; i < processes; i++) {
            children.add(startChild(share));
        }
        for (ChildProcess child : children) {
            child.readUntil("READY");
        }
        EngineStatistics statsBefore = engine.statistics();
        RetryMetrics retryBefore = engine.retryPolicies().get(settings.retryPolicy()).metrics();
        long start = System.nanoTime();
        for (ChildProcess child : children) {
            child.go();
        }
        int mine = count - share * (processes - 1);
        Progress progress = new Progress(count);
        Taken taken = take(d, mine, progress);
        List<Long> all = taken.numbers;
        List<String> failures = taken.failures;
        long conflicts = engine.retryPolicies().get(settings.retryPolicy()).metrics().attempts() - retryBefore.attempts()
                - (engine.retryPolicies().get(settings.retryPolicy()).metrics().calls() - retryBefore.calls());
        long statements = engine.statistics().since(statsBefore).statements();
        for (ChildProcess child : children) {
            String[] result = child.readUntil("RESULT ", line -> {
                if (line.startsWith("F ")) {
                    failures.add(line.substring(2));
                } else {
                    all.add(Long.parseLong(line.substring(2)));
                    progress.step();
                }
            }).split(" ");
            conflicts += Long.parseLong(result[1]);
            statements += Long.parseLong(result[2]);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        progress.done();
        if (!failures.isEmpty()) {
            String issued;
            try {
                issued = String.format(Locale.ROOT, "%,d", d.current() - before);
            } catch (RuntimeException e) {
                issued = "unknown (" + e.getMessage() + ")";
            }
            out.printf(Locale.ROOT, "the counter moved by %s; %,d number(s) were received%n", issued, new java.util.HashSet<>(all).size());
        }
        return report(out, all, failures, before, seconds, conflicts, statements);
    }

    private int report(PrintStream out, List<Long> all, List<String> failures, long before, double seconds, long conflicts,
                       long statements) {
        BitSet seen = new BitSet(count);
        long duplicates = 0;
        long outside = 0;
        for (long n : all) {
            long offset = n - before - 1;
            if (offset < 0 || offset >= count) {
                outside++;
            } else if (seen.get((int) offset)) {
                duplicates++;
            } else {
                seen.set((int) offset);
            }
        }
        long gaps = count - seen.cardinality();
        boolean ok = all.size() == count && duplicates == 0 && gaps == 0 && outside == 0 && failures.isEmpty();
        if (!failures.isEmpty()) {
            // A failed call may have committed before its answer was lost: its number is then a gap.
            out.printf(Locale.ROOT, "%,d call(s) failed; a failed call's number, if the counter moved for it, is lost:%n",
                    failures.size());
            failures.stream().distinct().limit(5).forEach(f -> out.println("  " + f));
        }
        out.printf(Locale.ROOT, "numbers %,d..%,d: %,d taken, %d duplicates, %d gaps, %d outside the range: %s%n",
                before + 1, before + count, all.size(), duplicates, gaps, outside, ok ? "OK" : "WRONG");
        out.printf(Locale.ROOT, "%.1f s, %,.0f numbers/s, %,d conflicts (retried attempts), %.2f statements per number%n",
                seconds, count / seconds, conflicts, (double) statements / count);
        return ok ? 0 : 1;
    }

    private Dispenser ensureDispenser(ContentEngine engine, EngineConfig config, DispenserConfig settings) {
        var admin = engine.session("take-a-number", Set.of(config.dispensers().adminRole())).dispensers();
        try {
            return admin.get(dispenser, settings);
        } catch (EngineRuntimeException e) {
            if (e.getExceptionCode() != ExceptionCode.E_OBJECT_NOT_FOUND) {
                throw e;
            }
            admin.create(dispenser, DispenserConfig.ofDefaults());
            return admin.get(dispenser, settings);
        }
    }

    /** The numbers a process took, and the calls that failed (a worker stops at its first). */
    private record Taken(List<Long> numbers, List<String> failures) {
    }

    /**
     * Takes {@code total} numbers with {@link #workers} threads. A call that fails (its policy gave
     * up: a database down for longer than it waits, say) ends its worker, and the others go on, so
     * that what was taken is still counted and checked.
     */
    private Taken take(Dispenser d, int total, Progress progress) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        try {
            List<Future<Taken>> futures = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                int mine = total / workers + (w < total % workers ? 1 : 0);
                futures.add(pool.submit(() -> {
                    List<Long> numbers = new ArrayList<>(mine);
                    try {
                        for (int i = 0; i < mine; i++) {
                            numbers.add(d.next());
                            if (progress != null) {
                                progress.step();
                            }
                        }
                        return new Taken(numbers, List.of());
                    } catch (RuntimeException e) {
                        return new Taken(numbers, List.of(e.getMessage()));
                    }
                }));
            }
            Taken all = new Taken(new ArrayList<>(total), new ArrayList<>());
            for (Future<Taken> f : futures) {
                Taken one = f.get(60, TimeUnit.MINUTES);
                all.numbers.addAll(one.numbers);
                all.failures.addAll(one.failures);
            }
            return all;
        } finally {
            pool.shutdownNow();
        }
    }

    private ChildProcess startChild(int share) throws java.io.IOException {
        List<String> args = new ArrayList<>(List.of("take-a-number", "--share", "" + share, "--dispenser", dispenser,
                "--workers", "" + workers, "--count", "" + count, "--processes", "" + processes, "--strategy", strategy.name()));
        if (feelingUnlucky) {
            args.add("--feeling-unlucky");
        }
        Path file = engineOptions.configFile();
        if (file != null) {
            args.add("--config");
            args.add(file.toAbsolutePath().toString());
        }
        return ChildProcess.start(args);
    }

    /** A text progress bar on standard error, redrawn at most every percent. */
    private static final class Progress {
        private final long total;
        private final AtomicLong done = new AtomicLong();
        private volatile int shown = -1;

        Progress(long total) {
            this.total = total;
        }

        void step() {
            int percent = (int) (done.incrementAndGet() * 100 / total);
            if (percent != shown) {
                shown = percent;
                int bar = percent / 2;
                System.err.print("\r[" + "#".repeat(bar) + " ".repeat(50 - bar) + "] " + percent + "%");
            }
        }

        void done() {
            System.err.println();
        }
    }
}
