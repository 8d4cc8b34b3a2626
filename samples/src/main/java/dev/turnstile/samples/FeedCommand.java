package dev.turnstile.samples;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.changes.Change;
import dev.turnstile.api.changes.ChangeDispatcher;
import dev.turnstile.api.changes.ChangeFeed;
import dev.turnstile.api.changes.ChangeFilter;
import dev.turnstile.api.changes.ChangeKind;
import dev.turnstile.api.changes.ChangesConfig;
import dev.turnstile.api.changes.ClientLag;
import dev.turnstile.api.changes.DeliveryMode;
import dev.turnstile.api.changes.DispatcherConfig;
import dev.turnstile.api.changes.QueuedChange;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The change propagation note as a demo: writers edit articles and comments (a bot makes bursts of
 * edits to one article), dispatcher processes serve ten queue clients with different filters, and
 * at the end every client's queue is checked against what its filter should have let through, by
 * change id; lag and the coalescing ratio are printed.
 */
@Command(name = "feed", description = "Writers edit objects, dispatcher processes serve ten clients; every delivery is checked.")
final class FeedCommand implements Callable<Integer> {
    @Mixin
    EngineOptions engineOptions;

    @Option(names = "--dispatchers", defaultValue = "2", description = "dispatcher processes (default ${DEFAULT-VALUE})")
    int dispatchers;

    @Option(names = "--writers", defaultValue = "3", description = "writer threads (default ${DEFAULT-VALUE})")
    int writers;

    @Option(names = "--edits", defaultValue = "100", description = "edits per writer (default ${DEFAULT-VALUE})")
    int edits;

    @Option(names = "--bursts", defaultValue = "20", description = "bursts of 5 edits the bot makes to one article (default ${DEFAULT-VALUE})")
    int bursts;

    @Option(names = "--dispatch", hidden = true, description = "for child processes: run a dispatcher until STOP")
    boolean child;

    private static final int CLIENTS = 10;

    @Override
    public Integer call() throws Exception {
        if (dispatchers < 1 || writers < 1 || edits < 1 || bursts < 0) {
            System.err.println("--dispatchers, --writers and --edits must be at least 1, --bursts at least 0");
            return 2;
        }
        EngineConfig config = EngineConfig.from(engineOptions.config()).changes(ChangesConfig.of(true)).build();
        try (ContentEngine engine = ContentEngine.open(config)) {
            return child ? dispatchUntilStopped(engine.changes()) : lead(engine, System.out);
        }
    }

    private static int dispatchUntilStopped(ChangeFeed feed) throws IOException {
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        System.out.println("READY");
        System.out.flush();
        stdin.readLine();
        try (ChangeDispatcher d = feed.dispatcher(DispatcherConfig.builder().idleDelay(java.time.Duration.ofMillis(20)).build())) {
            d.start();
            stdin.readLine(); // STOP
        }
        System.out.println("RESULT stopped");
        return 0;
    }

    private int lead(ContentEngine engine, PrintStream out) throws Exception {
        String run = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        String article = "FeedArticle" + run;
        String comment = "FeedComment" + run;
        ObjectStore os = engine.session("feed-demo").objectStore();
        os.defineClass(article, c -> c.string("Title").string("Body").integer32("Views"));
        os.defineClass(comment, c -> c.string("Text"));
        ChangeFeed feed = engine.changes();
        Map<String, ChangeFilter> clients = clients(run, article, comment);
        String reference = "feed-" + run + "-reference";
        feed.registerClient(reference, ChangeFilter.classes(article, comment), DeliveryMode.CALLBACK);
        List<Change> everything = Collections.synchronizedList(new ArrayList<>());
        // A subscriber that must never apply an older holder's late batch after a newer one keeps the
        // highest fencing token it applied (with what it writes) and refuses a lower one.
        AtomicLong applied = new AtomicLong();
        feed.subscribe(reference, (client, changes, fencingToken) -> {
            if (applied.accumulateAndGet(fencingToken, Math::max) == fencingToken) {
                everything.addAll(changes);
            }
        });
        clients.forEach((name, filter) -> feed.registerClient(name, filter, DeliveryMode.QUEUE));
        out.printf("%d dispatcher process(es), %d clients, %d writers × %d edits, a bot making %d bursts of 5%n",
                dispatchers, CLIENTS, writers, edits, bursts);
        List<ChildProcess> children = new ArrayList<>();
        try {
            for (int i = 0; i < dispatchers; i++) {
                children.add(startChild());
            }
            for (ChildProcess c : children) {
                c.readUntil("READY");
            }
            for (ChildProcess c : children) {
                c.go();
            }
            long start = System.nanoTime();
            int written = write(engine, article, comment);
            ChangeDispatcher here = feed.dispatcher(DispatcherConfig.builder().coalesce(false).build());
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            while (!caughtUp(feed, clients.keySet()) && System.nanoTime() < deadline) {
                if (here.runOnce().isIdle()) {
                    Thread.sleep(20);
                }
            }
            while (!here.runOnce().isIdle()) {
                // the reference client, served only here
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            out.printf("%d saves in %.1f s; lag when the writers stopped and the clients caught up:%n", written, seconds);
            for (ClientLag lag : feed.lag()) {
                if (clients.containsKey(lag.client())) {
                    out.printf("  %-28s position %d, %d pending%n", lag.client(), lag.position(), lag.pending());
                }
            }
            for (ChildProcess c : children) {
                c.send("STOP");
            }
            for (ChildProcess c : children) {
                c.readUntil("RESULT ");
            }
            return check(feed, clients, everything, out) ? 0 : 1;
        } finally {
            for (String name : feed.clients()) {
                if (name.startsWith("feed-" + run)) {
                    feed.unregisterClient(name);
                }
            }
        }
    }

    private static Map<String, ChangeFilter> clients(String run, String article, String comment) {
        Map<String, ChangeFilter> c = new LinkedHashMap<>();
        c.put("feed-" + run + "-search-index", ChangeFilter.classes(article, comment));
        c.put("feed-" + run + "-article-cache", ChangeFilter.classes(article));
        c.put("feed-" + run + "-comment-cache", ChangeFilter.classes(comment));
        c.put("feed-" + run + "-titles", ChangeFilter.classes(article).withProperties("Title"));
        c.put("feed-" + run + "-views", ChangeFilter.classes(article).withProperties("Views"));
        c.put("feed-" + run + "-new-and-gone", ChangeFilter.classes(article, comment).withKinds(ChangeKind.CREATE, ChangeKind.DELETE));
        c.put("feed-" + run + "-locks", ChangeFilter.classes(article).withKinds(ChangeKind.LOCK, ChangeKind.UNLOCK));
        c.put("feed-" + run + "-second-site", ChangeFilter.classes(article, comment));
        c.put("feed-" + run + "-moderation", ChangeFilter.classes(comment).withProperties("Text"));
        c.put("feed-" + run + "-audit", ChangeFilter.classes(article, comment).withKinds(ChangeKind.UPDATE));
        return c;
    }

    private static boolean caughtUp(ChangeFeed feed, java.util.Set<String> clients) {
        return feed.lag().stream().filter(l -> clients.contains(l.client())).allMatch(l -> l.pending() == 0);
    }

    /** Writers edit random objects; a bot makes bursts to one article. Returns the saves made. */
    private int write(ContentEngine engine, String article, String comment) throws Exception {
        ObjectStore setup = engine.session("editor-0").objectStore();
        List<CustomObject> objects = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            CustomObject o = setup.createCustomObject(i < 5 ? article : comment);
            o.getProperties().putValue(i < 5 ? "Title" : "Text", "first " + i);
            o.save(RefreshMode.REFRESH);
            objects.add(o);
        }
        List<java.util.UUID> ids = objects.stream().map(CustomObject::getId).toList();
        ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
        try {
            List<Future<Integer>> done = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                ObjectStore os = engine.session("editor-" + w).objectStore();
                Random random = new Random(w);
                done.add(pool.submit(() -> {
                    int saves = 0;
                    for (int i = 0; i < edits; i++) {
                        int k = random.nextInt(ids.size());
                        boolean isArticle = k < 5;
                        CustomObject o = os.fetchCustomObject(isArticle ? article : comment, ids.get(k), PropertyFilter.ALL);
                        boolean locking = isArticle && i % 10 == 0;
                        if (locking) {
                            o.lock(30, "editing");
                        } else if (isArticle && random.nextBoolean()) {
                            o.getProperties().putValue("Title", "title " + i);
                        } else if (isArticle) {
                            o.getProperties().putValue("Views", i);
                        } else {
                            o.getProperties().putValue("Text", "comment " + i);
                        }
                        try {
                            o.save(RefreshMode.REFRESH);
                            saves++;
                            if (locking) {
                                o.unlock();
                                o.save(RefreshMode.REFRESH);
                                saves++;
                            }
                        } catch (EngineRuntimeException e) {
                            if (e.getExceptionCode() != ExceptionCode.E_OBJECT_MODIFIED
                                    && e.getExceptionCode() != ExceptionCode.E_OBJECT_LOCKED) {
                                throw e;
                            }
                            // another writer came first: this edit is dropped, as an editor would redo it
                        }
                    }
                    return saves;
                }));
            }
            done.add(pool.submit(() -> {
                ObjectStore bot = engine.session("bot").objectStore();
                CustomObject o = bot.getCustomObject(article, ids.get(0));
                int saves = 0;
                for (int b = 0; b < bursts; b++) {
                    for (int i = 0; i < 5; i++) {
                        o.getProperties().putValue("Views", b * 5 + i);
                        o.setUpdateSequenceNumber(null); // the bot overwrites: last writer wins for view counts
                        o.save(RefreshMode.REFRESH);
                        saves++;
                    }
                }
                return saves;
            }));
            int saves = 8;
            for (Future<Integer> f : done) {
                saves += f.get(10, TimeUnit.MINUTES);
            }
            CustomObject gone = setup.getCustomObject(comment, ids.get(7));
            gone.delete();
            gone.save(RefreshMode.REFRESH);
            return saves + 1;
        } finally {
            pool.shutdownNow();
        }
    }

    /** Every client's queue must hold exactly the changes its filter lets through, each once, in order per object. */
    private static boolean check(ChangeFeed feed, Map<String, ChangeFilter> clients, List<Change> everything, PrintStream out) {
        boolean ok = true;
        long deliveries = 0;
        long covered = 0;
        for (Map.Entry<String, ChangeFilter> client : clients.entrySet()) {
            List<Long> expected = everything.stream().filter(client.getValue()::matches).map(Change::lastChangeId).sorted().toList();
            List<Change> got = new ArrayList<>();
            for (List<QueuedChange> page; !(page = feed.poll(client.getKey(), 1000)).isEmpty(); ) {
                page.forEach(q -> got.add(q.change()));
                feed.acknowledge(client.getKey(), page.stream().map(QueuedChange::deliveryId).toList());
            }
            List<Long> ids = got.stream().flatMap(c -> c.changeIds().stream()).sorted().toList();
            boolean match = ids.equals(expected);
            ok &= match;
            deliveries += got.size();
            covered += ids.size();
            out.printf("  %-28s %4d changes in %4d deliveries: %s%n", client.getKey(), ids.size(), got.size(),
                    match ? "OK" : "WRONG, expected " + expected.size() + " changes");
        }
        out.printf("Coalescing: %d changes in %d deliveries (%.2f changes per delivery)%n", covered, deliveries,
                deliveries == 0 ? 0.0 : (double) covered / deliveries);
        out.println(ok ? "OK: every client received every change its filter lets through, each once" : "WRONG: see above");
        return ok;
    }

    private ChildProcess startChild() throws IOException {
        List<String> args = new ArrayList<>(List.of("feed", "--dispatch"));
        Path file = engineOptions.configFile();
        if (file != null) {
            args.add("--config");
            args.add(file.toAbsolutePath().toString());
        }
        return ChildProcess.start(args);
    }
}
