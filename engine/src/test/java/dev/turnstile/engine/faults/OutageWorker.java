package dev.turnstile.engine.faults;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.Document;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.changes.ChangeDispatcher;
import dev.turnstile.api.changes.ChangeFeed;
import dev.turnstile.api.changes.ChangesConfig;
import dev.turnstile.api.changes.DispatcherConfig;
import dev.turnstile.api.changes.QueuedChange;
import dev.turnstile.api.dispenser.Dispenser;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.DispenserStrategy;
import dev.turnstile.api.retry.Locking;
import dev.turnstile.api.retry.RetryPoliciesConfig;
import dev.turnstile.api.retry.RetryPolicy;
import dev.turnstile.api.retry.RetryPolicyConfig;
import dev.turnstile.api.treelock.TreeLockHandle;
import dev.turnstile.api.treelock.TreePath;
import dev.turnstile.engine.ChildJvm;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A child process that works until its parent says STOP, while the parent restarts the database
 * under it (or kills the process serving it). Arguments: URL USER PASSWORD KEYED PLAIN CREATE_CLASS
 * CREATE_DISPENSER LOCK_CLASS LOCK_ID SITE LOG_DIR WORKLOADS (comma-separated, of those below)
 * [PLAIN_STRATEGY, COMBINING if not given] [FEED_CLIENT]. It runs, each in its own thread(s):
 * <ul>
 * <li>{@code keyed}: two threads taking numbers of KEYED with a request key each;</li>
 * <li>{@code plain}: two threads taking numbers of PLAIN without keys;</li>
 * <li>{@code create}: Documents of CREATE_CLASS numbered on create by CREATE_DISPENSER;</li>
 * <li>{@code lock}: the cooperative lock of LOCK_ID, appending "START pid", "END pid" to
 *     LOG_DIR/lock.log while it holds it;</li>
 * <li>{@code tree}: exclusive tree locks on SITE or one of its two workshops, appending
 *     "startNanos endNanos pid path" to LOG_DIR/tree.log while it holds them;</li>
 * <li>{@code feed}: a change dispatcher (serving every process's clients), and a thread reading the
 *     QUEUE client FEED_CLIENT, appending the InvoiceNumber of every CREATE it receives to
 *     LOG_DIR/FEED_CLIENT.log; on STOP it stops working and says STOPPED; on DRAIN (once
 *     every process stopped) it reads the client until nothing is pending.</li>
 * </ul>
 * Every success is printed as {@code OK workload epochMillis detail} (the number, for dispensers),
 * every failure that reached the caller as {@code FAIL workload code message}, and the step is
 * tried again (a keyed number with its same key). The dispensers use their built-in policy; the
 * other loops a policy that, like it, waits out an outage.
 */
public final class OutageWorker {
    private static final AtomicBoolean stop = new AtomicBoolean();

    public static void main(String[] args) throws Exception {
        stop.set(false); // a reused JVM runs workers one after another (ChildJvm)
        Set<String> workloads = Set.of(args[11].split(","));
        EngineConfig config = EngineConfig.builder().jdbcUrl(args[0]).username(args[1]).password(args[2]).maxPoolSize(8)
                .changes(ChangesConfig.of(workloads.contains("feed")))
                .connectionTimeout(Duration.ofSeconds(2))
                .retry(RetryPoliciesConfig.builder().policy("outage", RetryPolicyConfig.builder().maxAttempts(1_000_000).waitDuration(Duration.ofMillis(5))
                        .enableRandomizedWait(true).randomizedWaitFactor(0.8).maxTotalWait(Duration.ofSeconds(60))
                        .retryCodes(EnumSet.of(ExceptionCode.E_OBJECT_LOCKED, ExceptionCode.E_OBJECT_MODIFIED,
                                ExceptionCode.E_DATABASE_UNAVAILABLE)).build()).build())
                .build();
        String pid = Long.toString(ProcessHandle.current().pid());
        Path logs = Path.of(args[10]);
        try (ContentEngine engine = ContentEngine.open(config)) {
            RetryPolicy outage = engine.retryPolicies().get("outage");
            List<Thread> threads = new ArrayList<>();
            ObjectStore os = engine.session("pid" + pid).objectStore();
            Dispenser keyed = engine.session("pid" + pid).dispensers().get(args[3]);
            Dispenser plain = engine.session("pid" + pid).dispensers().get(args[4], DispenserConfig.builder()
                    .strategy(DispenserStrategy.valueOf(args.length > 12 ? args[12] : "COMBINING")).build());
            for (int t = 0; t < 2; t++) {
                String prefix = pid + "-" + t + "-";
                if (workloads.contains("keyed")) {
                    threads.add(loop("keyed", i -> "" + keyed.next(1, prefix + i).first()));
                }
                if (workloads.contains("plain")) {
                    threads.add(loop("plain", i -> "" + plain.next()));
                }
            }
            if (workloads.contains("create")) {
                engine.dispensers().get(args[6]).numberOnCreate(args[5], "InvoiceNumber");
                threads.add(loop("create", i -> outage.call(() -> {
                    Document doc = os.createDocument(args[5]);
                    doc.save(RefreshMode.REFRESH);
                    return "" + doc.getProperties().getInt64Value("InvoiceNumber");
                })));
            }
            if (workloads.contains("lock")) {
                CustomObject o = os.getCustomObject(args[7], UUID.fromString(args[8]));
                threads.add(loop("lock", i -> outage.call(() -> Locking.withLock(o, 60, "outage " + pid, outage, locked -> {
                    append(logs.resolve("lock.log"), "START " + pid);
                    append(logs.resolve("lock.log"), "END " + pid);
                    return "" + i;
                }))));
            }
            if (workloads.contains("tree")) {
                TreePath site = TreePath.root("site", args[9]);
                Random random = new Random();
                threads.add(loop("tree", i -> {
                    TreePath node = random.nextInt(3) == 0 ? site : site.child("workshop", random.nextBoolean() ? "A" : "B");
                    try (TreeLockHandle ignored = engine.session("pid " + pid).treeLocks().lock(Set.of(node), Duration.ofSeconds(60))) {
                        long start = System.nanoTime();
                        long end = System.nanoTime();
                        append(logs.resolve("tree.log"), start + " " + end + " " + pid + " " + node);
                    }
                    return "" + i;
                }));
            }
            ChangeDispatcher dispatcher = null;
            Runnable drain = () -> { };
            if (workloads.contains("feed")) {
                ChangeFeed feed = engine.changes();
                String client = args[13];
                Path received = logs.resolve(client + ".log");
                dispatcher = feed.dispatcher(DispatcherConfig.builder().lease(Duration.ofSeconds(5)).build());
                dispatcher.start();
                threads.add(loop("feed", i -> {
                    for (int n; !stop.get(); pause()) {
                        if ((n = outage.call(() -> readOnce(feed, client, received))) > 0) {
                            return "" + n;
                        }
                    }
                    return "0";
                }));
                drain = () -> {
                    // The lag first: a dispatcher moves the client's position and queues the changes in one
                    // transaction, so once nothing is pending the queue holds all; read in the other order, a
                    // pass committing in between left its changes unread (seen beside a CPU hog).
                    while (outage.call(() -> feed.lag(client)).pending() > 0 || outage.call(() -> readOnce(feed, client, received)) > 0) {
                        pause();
                    }
                };
            }
            System.out.println("READY");
            System.out.flush();
            BufferedReader parent = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            parent.readLine();
            stop.set(true);
            for (Thread t : threads) {
                t.join();
            }
            // The feed is drained once every process has stopped creating: DRAIN comes after all said STOPPED.
            System.out.println("STOPPED");
            System.out.flush();
            parent.readLine();
            drain.run();
            if (dispatcher != null) {
                dispatcher.stop();
            }
            System.out.println("DONE");
        }
    }

    /** One poll of a QUEUE client: the InvoiceNumbers of what it brought appended to {@code log}, then acknowledged. */
    private static int readOnce(ChangeFeed feed, String client, Path log) {
        List<QueuedChange> got = feed.poll(client, 100);
        StringBuilder lines = new StringBuilder();
        for (QueuedChange q : got) {
            lines.append(q.change().properties().get("InvoiceNumber").newValue()).append('\n');
        }
        if (!got.isEmpty()) {
            append(log, lines.substring(0, lines.length() - 1));
            feed.acknowledge(client, got.stream().map(QueuedChange::deliveryId).toList());
        }
        return got.size();
    }

    /** The details (numbers) of a workload's OK lines. */
    static List<Long> numbers(List<String> lines, String workload) {
        return lines.stream().filter(l -> l.startsWith("OK " + workload + " ")).map(l -> Long.parseLong(l.split(" ")[3])).toList();
    }

    /**
     * The numbers of a workload that more than one success reported, each with who reported it:
     * the child's pid and the time of its OK line.
     */
    static Map<Long, List<String>> reportedTwice(List<ChildJvm> children, String workload) {
        Map<Long, List<String>> by = new TreeMap<>();
        for (ChildJvm c : children) {
            for (String l : c.lines()) {
                if (l.startsWith("OK " + workload + " ")) {
                    String[] f = l.split(" ");
                    by.computeIfAbsent(Long.parseLong(f[3]), n -> new ArrayList<>()).add("pid " + c.pid() + " at " + f[2]);
                }
            }
        }
        by.values().removeIf(reporters -> reporters.size() < 2);
        return by;
    }

    /** The time (epoch ms) of a workload's first OK line at or after {@code since}. */
    static long firstOkSince(List<String> lines, String workload, long since) {
        return lines.stream().filter(l -> l.startsWith("OK " + workload + " ")).mapToLong(l -> Long.parseLong(l.split(" ")[2]))
                .filter(t -> t >= since).min().orElseThrow();
    }

    /** How many OK lines of a workload are at or after {@code since}. */
    static long oksSince(List<String> lines, String workload, long since) {
        return lines.stream().filter(l -> l.startsWith("OK " + workload + " ") && Long.parseLong(l.split(" ")[2]) >= since).count();
    }

    /** Waits until every child has {@code count} more successes of every workload after {@code since} (epoch ms). */
    static void awaitProgress(List<ChildJvm> children, List<String> workloads, long since, int count) {
        for (ChildJvm c : children) {
            for (String workload : workloads) {
                try {
                    c.awaitLine(l -> l.startsWith("OK " + workload + " ") && oksSince(c.lines(), workload, since) >= count,
                            Duration.ofSeconds(60));
                } catch (org.awaitility.core.ConditionTimeoutException e) {
                    List<String> lines = c.lines();
                    throw new AssertionError(workload + " made no progress; the child's last lines: "
                            + lines.subList(Math.max(0, lines.size() - 20), lines.size()), e);
                }
            }
        }
    }

    interface Step {
        String run(long i);
    }

    /**
     * After STOP was sent to every child: waits until all stopped working, then lets them drain
     * their feed clients and waits until they are done.
     */
    static void drainAfterStop(List<ChildJvm> children, java.time.Duration timeout) {
        for (ChildJvm c : children) {
            c.awaitLine("STOPPED"::equals, timeout);
        }
        children.forEach(c -> c.send("DRAIN"));
        for (ChildJvm c : children) {
            c.awaitLine("DONE"::equals, timeout);
        }
    }

    /** A thread running {@code step} until STOP; a failure is printed and the same step is tried again. */
    private static Thread loop(String workload, Step step) {
        Thread t = new Thread(() -> {
            for (long i = 0; !stop.get(); ) {
                try {
                    String detail = step.run(i);
                    print("OK " + workload + " " + System.currentTimeMillis() + " " + detail);
                    i++;
                } catch (EngineRuntimeException e) {
                    print("FAIL " + workload + " " + e.getExceptionCode() + " " + e.getMessage().replace('\n', ' '));
                    pause();
                } catch (RuntimeException e) {
                    print("FAIL " + workload + " " + e.getClass().getName() + " " + String.valueOf(e.getMessage()).replace('\n', ' '));
                    e.printStackTrace(); // not the engine's error: its stack, in the child's error log
                    pause();
                }
            }
        }, workload);
        t.start();
        return t;
    }

    private static synchronized void print(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static void pause() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void append(Path log, String line) {
        try {
            // One small O_APPEND write per line: atomic on Linux, so lines from processes never interleave.
            Files.writeString(log, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
