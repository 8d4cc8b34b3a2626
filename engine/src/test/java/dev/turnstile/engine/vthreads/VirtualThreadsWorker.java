package dev.turnstile.engine.vthreads;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.dispenser.Dispenser;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.DispensersConfig;
import dev.turnstile.api.retry.Locking;
import dev.turnstile.api.retry.RetryPoliciesConfig;
import dev.turnstile.api.retry.RetryPolicyConfig;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingStream;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A host on a JDK with virtual threads (21 or later; this one is compiled for 17, so it asks for
 * them by reflection): {@code threads} virtual threads each take a number and increment one of
 * {@code objects} counters under its cooperative lock ({@code Locking.withLock}), on an engine with
 * its default pool, while a JFR stream counts {@code jdk.VirtualThreadPinned} events (every one,
 * whatever its duration, once a warm-up crowd has run). Prints {@code PINNED n} (those of class
 * loading apart: {@code PINNED_BY_CLASS_LOADING n}), {@code FAILED n}, {@code NUMBERS min max distinct},
 * {@code COUNTERS c1,c2,…}, then {@code DONE}. Arguments: JDBC URL, user, password, threads, objects,
 * and the warm-up crowd's threads (its pins are not counted).
 */
public final class VirtualThreadsWorker {
    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[3]);
        int objects = Integer.parseInt(args[4]);
        int warmUp = Integer.parseInt(args[5]);
        AtomicInteger pinned = new AtomicInteger();
        AtomicInteger pinnedByClassLoading = new AtomicInteger();
        try (RecordingStream jfr = new RecordingStream()) {
            jfr.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
            jfr.onEvent("jdk.VirtualThreadPinned", event -> {
                System.err.println("pinned: " + event);
                (classLoading(event) ? pinnedByClassLoading : pinned).incrementAndGet();
            });
            EngineConfig config = EngineConfig.builder().jdbcUrl(args[0]).username(args[1]).password(args[2])
                    .retry(RetryPoliciesConfig.builder().policy("crowd", RetryPolicyConfig.builder().maxAttempts(1_000_000)
                            .waitDuration(Duration.ofMillis(2)).enableRandomizedWait(true).randomizedWaitFactor(0.5).build()).build())
                    .build();
            try (ContentEngine engine = ContentEngine.open(config)) {
                String name = "vt-" + UUID.randomUUID().toString().substring(0, 8);
                engine.session("admin", Set.of(DispensersConfig.DEFAULT_ADMIN_ROLE)).dispensers().create(name, DispenserConfig.ofDefaults());
                ObjectStore os = engine.session("setup").objectStore();
                String cls = "Vt" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
                os.defineClass(cls, c -> c.integer32("N"));
                List<CustomObject> counters = new ArrayList<>();
                for (int i = 0; i < objects; i++) {
                    CustomObject o = os.createCustomObject(cls);
                    o.getProperties().putValue("N", 0);
                    o.save(RefreshMode.REFRESH);
                    counters.add(o);
                }
                ConcurrentLinkedQueue<Long> numbers = new ConcurrentLinkedQueue<>();
                AtomicInteger failed = new AtomicInteger();
                ExecutorService virtual = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
                // A warm-up crowd first, contending as the measured one does: the JDK pins a virtual
                // thread while it loads or initializes a class another thread is loading (seen: the
                // socket poller, Resilience4j's and the engine's classes on first use), once per class.
                crowd(engine, virtual, name, cls, counters, warmUp, 0, numbers, failed);
                jfr.startAsync();
                crowd(engine, virtual, name, cls, counters, threads, warmUp, numbers, failed);
                virtual.shutdown();
                // Stops the stream once every event recorded so far reached the handler (JDK 20+: by reflection).
                RecordingStream.class.getMethod("stop").invoke(jfr);
                say("PINNED " + pinned.get());
                say("PINNED_BY_CLASS_LOADING " + pinnedByClassLoading.get());
                say("FAILED " + failed.get());
                say("NUMBERS " + numbers.stream().mapToLong(Long::longValue).min().orElse(0) + " "
                        + numbers.stream().mapToLong(Long::longValue).max().orElse(0) + " " + numbers.stream().distinct().count());
                List<String> ns = new ArrayList<>();
                for (CustomObject o : counters) {
                    ns.add(Integer.toString(os.fetchCustomObject(cls, o.getId(), PropertyFilter.ALL).getProperties().getInteger32Value("N")));
                }
                say("COUNTERS " + String.join(",", ns));
                say("DONE");
            }
        }
    }

    /**
     * A pin the JDK makes while a virtual thread loads, or waits for another to initialize, a class:
     * once per class, and not the code's doing (JDK 25 still pins there).
     */
    private static boolean classLoading(RecordedEvent event) {
        String reason = event.hasField("pinnedReason") ? String.valueOf(event.getValue("pinnedReason")) : "";
        return reason.contains("initialization") || event.getStackTrace() != null && event.getStackTrace().getFrames().stream()
                .anyMatch(f -> f.getMethod().getName().startsWith("loadClass"));
    }

    /** {@code threads} virtual threads, each taking a number and incrementing its counter under the counter's lock. */
    private static void crowd(ContentEngine engine, ExecutorService virtual, String name, String cls, List<CustomObject> counters,
                              int threads, int from, ConcurrentLinkedQueue<Long> numbers, AtomicInteger failed) throws Exception {
        List<Future<?>> done = new ArrayList<>();
        for (int t = from; t < from + threads; t++) {
            String user = "vt" + t;
            UUID counter = counters.get(t % counters.size()).getId();
            done.add(virtual.submit(() -> {
                try {
                    Dispenser d = engine.session(user).dispensers().get(name);
                    numbers.add(d.next());
                    CustomObject mine = engine.session(user).objectStore().getCustomObject(cls, counter);
                    Locking.withLock(mine, 60, user, engine.retryPolicies().get("crowd"), o -> {
                        o.getProperties().putValue("N", o.getProperties().getInteger32Value("N") + 1);
                        return null;
                    });
                } catch (RuntimeException e) {
                    if (failed.getAndIncrement() < 3) {
                        e.printStackTrace();
                    }
                }
            }));
        }
        for (Future<?> f : done) {
            f.get(10, TimeUnit.MINUTES);
        }
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
