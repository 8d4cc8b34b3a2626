package dev.turnstile.samples;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.treelock.TreeLockHandle;
import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreeLocks;
import dev.turnstile.api.treelock.TreePath;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The control centre of the hierarchical-lock article: a site of workshops, benches and
 * operations, and threads in one or several processes running a random mix of operations — one
 * operation on a bench, an execution spanning benches of two workshops, a workshop upgrade, a
 * shared inspection of a workshop, now and then a site-wide job — each under a tree lock. Every
 * operation logs its start and end; at the end the log is checked: no two conflicting operations
 * overlapped, and independent ones did run at the same time.
 */
@Command(name = "plant", description = "Threads and processes run a random mix of operations on a site under tree locks, then check the log.")
final class PlantCommand implements Callable<Integer> {
    @Mixin
    EngineOptions engineOptions;

    @Option(names = "--workshops", defaultValue = "3", description = "workshops on the site (default ${DEFAULT-VALUE})")
    int workshops;

    @Option(names = "--benches", defaultValue = "4", description = "benches per workshop (default ${DEFAULT-VALUE})")
    int benches;

    @Option(names = "--operations", defaultValue = "3", description = "operations per bench (default ${DEFAULT-VALUE})")
    int operations;

    @Option(names = "--threads", defaultValue = "4", description = "threads per process (default ${DEFAULT-VALUE})")
    int threads;

    @Option(names = "--processes", defaultValue = "1", description = "processes, this one included (default ${DEFAULT-VALUE})")
    int processes;

    @Option(names = "--rounds", defaultValue = "40", description = "operations per thread (default ${DEFAULT-VALUE})")
    int rounds;

    @Option(names = "--work-ms", defaultValue = "3", description = "longest time an operation works, in ms (default ${DEFAULT-VALUE})")
    int workMillis;

    @Option(names = "--site", hidden = true, description = "for child processes: the site to work on")
    String childSite;

    @Option(names = "--log", hidden = true, description = "for child processes: the operations log")
    Path childLog;

    /** One operation as the log records it. */
    record Operation(long startNanos, long endNanos, String worker, String name, TreeLockRequest request) {
        boolean overlaps(Operation o) {
            return startNanos < o.endNanos && o.startNanos < endNanos;
        }
    }

    @Override
    public Integer call() throws Exception {
        if (workshops < 2 || benches < 2 || operations < 1 || threads < 1 || processes < 1 || rounds < 1 || workMillis < 0) {
            System.err.println("--workshops and --benches must be at least 2; --operations, --threads, --processes and --rounds at least 1");
            return 2;
        }
        try (ContentEngine engine = engineOptions.open()) {
            if (childSite != null) {
                ChildProcess.readyAndWait();
                runThreads(engine, TreePath.root("site", childSite), childLog);
                System.out.println("RESULT done");
                return 0;
            }
            return lead(engine, System.out);
        }
    }

    private int lead(ContentEngine engine, PrintStream out) throws Exception {
        String siteId = "plant-" + UUID.randomUUID().toString().substring(0, 8);
        TreePath site = TreePath.root("site", siteId);
        Path log = Files.createTempFile("plant-", ".log");
        try {
            out.printf("Site %s: %d workshops × %d benches × %d operations; %d process(es) × %d threads × %d operations%n",
                    site, workshops, benches, operations, processes, threads, rounds);
            List<ChildProcess> children = new ArrayList<>();
            for (int i = 1; i < processes; i++) {
                children.add(startChild(siteId, log));
            }
            for (ChildProcess child : children) {
                child.readUntil("READY");
            }
            for (ChildProcess child : children) {
                child.go();
            }
            long start = System.nanoTime();
            runThreads(engine, site, log);
            for (ChildProcess child : children) {
                child.readUntil("RESULT ");
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            return check(readLog(log), seconds, out) && engine.treeLocks().status(site).isEmpty() ? 0 : 1;
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /** Checks every pair of logged operations; prints the verdict and returns whether it holds. */
    boolean check(List<Operation> ops, double seconds, PrintStream out) {
        long conflicting = 0;
        long independentOverlaps = 0;
        List<String> violations = new ArrayList<>();
        for (int i = 0; i < ops.size(); i++) {
            for (int j = i + 1; j < ops.size(); j++) {
                Operation a = ops.get(i);
                Operation b = ops.get(j);
                boolean conflict = a.request().conflictsWith(b.request());
                conflicting += conflict ? 1 : 0;
                if (a.overlaps(b)) {
                    if (conflict) {
                        violations.add(a.name() + " " + a.request() + " by " + a.worker() + " overlapped " + b.name() + " "
                                + b.request() + " by " + b.worker());
                    } else {
                        independentOverlaps++;
                    }
                }
            }
        }
        int expected = processes * threads * rounds;
        out.printf("%d operations in %.1f s (%.0f/s); %d conflicting pairs, none may overlap: %d did; %d independent pairs ran at the same time%n",
                ops.size(), seconds, ops.size() / seconds, conflicting, violations.size(), independentOverlaps);
        violations.stream().limit(10).forEach(v -> out.println("  VIOLATION: " + v));
        boolean ok = violations.isEmpty() && ops.size() == expected && (independentOverlaps > 0 || threads * processes == 1);
        out.println(ok ? "OK: conflicting operations took turns, independent ones ran in parallel"
                : ops.size() != expected ? "WRONG: " + ops.size() + " operations logged, expected " + expected
                : violations.isEmpty() ? "WRONG: no independent operations overlapped" : "WRONG: conflicting operations overlapped");
        return ok;
    }

    private void runThreads(ContentEngine engine, TreePath site, Path log) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String worker = ProcessHandle.current().pid() + "-" + t;
                Random random = new Random(worker.hashCode() ^ System.nanoTime());
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < rounds; i++) {
                        runOne(engine.session(worker).treeLocks(), site, worker, random, log); // each worker holds its locks as itself
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(30, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private void runOne(TreeLocks locks, TreePath site, String worker, Random random, Path log) throws Exception {
        int kind = random.nextInt(100);
        String name;
        TreeLockRequest request;
        if (kind < 55) {
            // One operation: its border, the bench it runs on, is locked.
            TreePath bench = bench(site, random.nextInt(workshops), random.nextInt(benches));
            name = "operation " + bench.child("operation", "op" + random.nextInt(operations));
            request = TreeLockRequest.exclusive(bench);
        } else if (kind < 80) {
            // An execution over benches of two workshops, given as the operation document a host would send.
            name = "execution";
            request = locks.parseRequest(executionDocument(site, random));
        } else if (kind < 90) {
            TreePath w = site.child("workshop", "W" + random.nextInt(workshops));
            name = "inspection of " + w;
            request = TreeLockRequest.shared(w);
        } else if (kind < 98) {
            TreePath w = site.child("workshop", "W" + random.nextInt(workshops));
            name = "upgrade of " + w;
            request = TreeLockRequest.exclusive(w);
        } else {
            name = "site-wide job";
            request = TreeLockRequest.exclusive(site);
        }
        try (TreeLockHandle ignored = locks.lock(request, Duration.ofMinutes(2))) {
            long start = System.nanoTime();
            if (workMillis > 0) {
                Thread.sleep(1 + random.nextInt(workMillis));
            }
            long end = System.nanoTime();
            String line = start + "\t" + end + "\t" + worker + "\t" + name + "\t" + request + "\n";
            // One small O_APPEND write per line: atomic on Linux, so lines from processes never interleave.
            Files.writeString(log, line, StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
        }
    }

    private TreePath bench(TreePath site, int workshop, int bench) {
        return site.child("workshop", "W" + workshop).child("bench", "B" + bench);
    }

    /** The nested XML of the article: the site, two workshops, and the operations' benches under each. */
    private String executionDocument(TreePath site, Random random) {
        int first = random.nextInt(workshops);
        int second = (first + 1 + random.nextInt(workshops - 1)) % workshops;
        StringBuilder xml = new StringBuilder("<site id=\"" + site.last().id() + "\">");
        for (int w : new int[] {first, second}) {
            xml.append("<workshop id=\"W").append(w).append("\">");
            TreeSet<Integer> chosen = new TreeSet<>();
            int n = 1 + random.nextInt(Math.min(3, benches));
            while (chosen.size() < n) {
                chosen.add(random.nextInt(benches));
            }
            chosen.forEach(b -> xml.append("<bench id=\"B").append(b).append("\"/>"));
            xml.append("</workshop>");
        }
        return xml.append("</site>").toString();
    }

    private static List<Operation> readLog(Path log) throws IOException {
        List<Operation> ops = new ArrayList<>();
        for (String line : Files.readAllLines(log)) {
            String[] f = line.split("\t");
            ops.add(new Operation(Long.parseLong(f[0]), Long.parseLong(f[1]), f[2], f[3], parseRequest(f[4])));
        }
        return ops;
    }

    /** Reads back {@link TreeLockRequest#toString()}: {@code [X path, S path]}. */
    static TreeLockRequest parseRequest(String text) {
        TreeLockRequest.Builder b = TreeLockRequest.builder();
        for (String node : text.substring(1, text.length() - 1).split(", ")) {
            b.node(TreePath.parse(node.substring(2)), dev.turnstile.api.treelock.TreeLockMode.parse(node.substring(0, 1)));
        }
        return b.build();
    }

    private ChildProcess startChild(String siteId, Path log) throws IOException {
        List<String> args = new ArrayList<>(List.of("plant", "--site", siteId, "--log", log.toString(),
                "--workshops", "" + workshops, "--benches", "" + benches, "--operations", "" + operations,
                "--threads", "" + threads, "--rounds", "" + rounds, "--work-ms", "" + workMillis));
        Path file = engineOptions.configFile();
        if (file != null) {
            args.add("--config");
            args.add(file.toAbsolutePath().toString());
        }
        return ChildProcess.start(args);
    }
}
