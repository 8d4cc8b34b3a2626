package dev.turnstile.samples;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.retry.Locking;
import dev.turnstile.api.retry.RetryMetrics;
import dev.turnstile.api.retry.RetryPoliciesConfig;
import dev.turnstile.api.retry.RetryPolicy;
import dev.turnstile.api.retry.RetryPolicyConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The cooperative-lock loop of the "take a number" article: workers in one or several processes
 * increment one counter, each increment under the lock (taken with the configured retry policy),
 * then the final value is checked against the number of increments.
 */
@Command(name = "locks", description = "Workers in one or several processes increment a counter under the cooperative lock.")
final class LocksCommand implements Callable<Integer> {
    static final String CLASS_NAME = "LocksDemoCounter";

    @Mixin
    EngineOptions engineOptions;

    @Option(names = "--workers", defaultValue = "4", description = "threads per process (default ${DEFAULT-VALUE})")
    int workers;

    @Option(names = "--increments", defaultValue = "50", description = "increments per thread (default ${DEFAULT-VALUE})")
    int increments;

    @Option(names = "--processes", defaultValue = "1", description = "processes, this one included (default ${DEFAULT-VALUE})")
    int processes;

    /** Used when the configuration has no policy of the chosen name: patient, with jitter against lock-step retries. */
    static final RetryPolicyConfig DEMO_POLICY = RetryPolicyConfig.builder().maxAttempts(10_000)
            .waitDuration(Duration.ofMillis(5)).enableRandomizedWait(true).randomizedWaitFactor(0.5)
            .maxTotalWait(Duration.ofMinutes(5)).build();

    @Option(names = "--policy", defaultValue = "locks",
            description = "retry policy to take the lock with; if the configuration lacks it, a built-in one"
                    + " (10000 attempts, 5ms ± 50%%, at most 5 minutes) (default ${DEFAULT-VALUE})")
    String policyName;

    @Option(names = "--timeout", defaultValue = "30", description = "lock timeout in seconds (default ${DEFAULT-VALUE})")
    int timeoutSeconds;

    @Option(names = "--object", hidden = true, description = "for child processes: the counter to increment")
    UUID childOf;

    @Override
    public Integer call() throws Exception {
        if (workers < 1 || increments < 1 || processes < 1) {
            System.err.println("--workers, --increments and --processes must be at least 1");
            return 2;
        }
        EngineConfig config = engineOptions.config();
        if (!config.retry().policies().containsKey(policyName)) {
            config = EngineConfig.from(config).retry(RetryPoliciesConfig.from(config.retry()).policy(policyName, DEMO_POLICY).build()).build();
        }
        try (ContentEngine engine = ContentEngine.open(config)) {
            RetryPolicy policy = engine.retryPolicies().get(policyName);
            if (childOf != null) {
                ChildProcess.readyAndWait();
                runWorkers(engine, policy, childOf);
                RetryMetrics m = policy.metrics();
                System.out.println("RESULT " + m.attempts() + " " + m.totalWait().toMillis());
                return 0;
            }
            return lead(engine, policy, System.out);
        }
    }

    private int lead(ContentEngine engine, RetryPolicy policy, PrintStream out) throws Exception {
        ObjectStore os = engine.session("locks-demo").objectStore();
        os.defineClass(CLASS_NAME, c -> c.integer32("Counter"));
        CustomObject counter = os.createCustomObject(CLASS_NAME);
        counter.getProperties().putValue("Counter", 0);
        counter.save(RefreshMode.REFRESH);
        out.printf("%d process(es) × %d workers × %d increments under the cooperative lock, policy '%s': %s%n",
                processes, workers, increments, policy.name(), policy.config());

        List<ChildProcess> children = new ArrayList<>();
        for (int i = 1; i < processes; i++) {
            children.add(startChild(counter.getId()));
        }
        for (ChildProcess child : children) {
            child.readUntil("READY");
        }
        for (ChildProcess child : children) {
            child.go();
        }
        long start = System.nanoTime();
        runWorkers(engine, policy, counter.getId());
        long attempts = policy.metrics().attempts();
        long waitedMillis = policy.metrics().totalWait().toMillis();
        out.printf("  process %d (this one): %d attempts, waited %d ms%n", ProcessHandle.current().pid(), attempts, waitedMillis);
        for (ChildProcess child : children) {
            String[] result = child.readUntil("RESULT ").split(" ");
            out.printf("  process %d: %s attempts, waited %s ms%n", child.pid(), result[1], result[2]);
            attempts += Long.parseLong(result[1]);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        int expected = processes * workers * increments;
        int actual = os.fetchCustomObject(CLASS_NAME, counter.getId(), PropertyFilter.ALL).getProperties().getInteger32Value("Counter");
        out.printf("Counter = %d, expected %d: %s. %.1f increments/s, %.2f lock attempts per increment%n", actual, expected,
                actual == expected ? "OK, no lost update" : "WRONG", expected / seconds, (double) attempts / expected);
        return actual == expected ? 0 : 1;
    }

    private void runWorkers(ContentEngine engine, RetryPolicy policy, UUID id) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                String user = "worker-" + ProcessHandle.current().pid() + "-" + w;
                ObjectStore os = engine.session(user).objectStore();
                futures.add(pool.submit(() -> {
                    CustomObject o = os.getCustomObject(CLASS_NAME, id);
                    for (int i = 0; i < increments; i++) {
                        Locking.withLock(o, timeoutSeconds, user, policy, locked -> {
                            locked.getProperties().putValue("Counter", locked.getProperties().getInteger32Value("Counter") + 1);
                            return null;
                        });
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

    private ChildProcess startChild(UUID id) throws IOException {
        List<String> args = new ArrayList<>(List.of("locks", "--object", id.toString(), "--workers", "" + workers,
                "--increments", "" + increments, "--policy", policyName, "--timeout", "" + timeoutSeconds));
        Path file = engineOptions.configFile();
        if (file != null) {
            args.add("--config");
            args.add(file.toAbsolutePath().toString());
        }
        return ChildProcess.start(args);
    }

}
