package dev.turnstile.engine.changes;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.changes.Change;
import dev.turnstile.api.changes.ChangeDispatcher;
import dev.turnstile.api.changes.ChangeFilter;
import dev.turnstile.api.changes.DeliveryMode;
import dev.turnstile.api.changes.DispatchReport;
import dev.turnstile.api.changes.DispatcherConfig;
import dev.turnstile.api.changes.FencedChangeSubscriber;
import dev.turnstile.engine.db.Expiry;
import dev.turnstile.engine.db.WakeUps;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.PreparedStatement;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * One dispatcher. A pass: sequence what has committed; among the clients behind the head and not
 * held by a live dispatcher, take one of the least recently touched (at random among the first
 * three, so dispatchers starting together spread out) with a USN-checked lease; read a batch after
 * its position, filter, coalesce, deliver; then in one transaction move its position, touch it and
 * give it back. A dispatcher that dies mid-batch leaves the position where it was: after the lease,
 * another takes the client and delivers the batch again (at least once).
 */
final class DefaultChangeDispatcher implements ChangeDispatcher {
    private static final Logger log = LoggerFactory.getLogger(DefaultChangeDispatcher.class);
    private static final int CANDIDATES = 8;
    private static final int SPREAD = 3;

    private final DefaultChangeFeed feed;
    private final DispatcherConfig config;
    private final String name;
    private volatile Thread thread;
    private volatile boolean stopping;
    private volatile int failedPasses;
    /** For tests: how many times the dispatcher has begun an idle wait. */
    volatile long idleWaits;
    /** For tests: told the instants (System.nanoTime) a client was held from and to, both inside the lease. */
    volatile HoldListener holdListener;

    interface HoldListener {
        void held(String client, long fromNanos, long toNanos);
    }

    /** For tests: runs after a CALLBACK client's batch is read, before its call (where a pause hurts most). */
    volatile Runnable beforeCall;

    DefaultChangeDispatcher(DefaultChangeFeed feed, DispatcherConfig config, String name) {
        this.feed = feed;
        this.config = config;
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public DispatchReport runOnce() {
        feed.database.host().refuse("Change dispatching");
        return feed.operations.run("turnstile.changes.dispatch", this::pass, "dispatcher", name);
    }

    /** One pass: a client that is behind, taken and served, or none. */
    private DispatchReport pass() {
        long head = feed.sequencer.sequence();
        List<ClientRecord> behind = feed.database.inTransaction(() -> name + " looking for clients", session ->
                session.createSelectionQuery("from ClientRecord c where c.position < :head and (c.holder is null or "
                                + Expiry.in("c.leaseUntil").lapsedAt(":now") + ") order by c.touchedAt", ClientRecord.class)
                        .setParameter("head", head).setParameter("now", feed.database.now()).setMaxResults(CANDIDATES)
                        .getResultList());
        List<ClientRecord> servable = behind.stream()
                .filter(c -> DeliveryMode.QUEUE.name().equals(c.mode) || feed.subscribers.containsKey(c.name)).toList();
        if (servable.isEmpty()) {
            return DispatchReport.IDLE;
        }
        ClientRecord client = servable.get(ThreadLocalRandom.current().nextInt(Math.min(SPREAD, servable.size())));
        long leased = client.usn + 1;
        boolean taken = feed.database.inTransaction(() -> name + " taking client " + client.name, session -> {
            Instant now = feed.database.now();
            // Free or lapsed by the database clock in this statement, and still as we read it.
            return feed.clientLease.take(client.name, name, now.plus(config.lease()), now, null).ifUsn(client.usn)
                    .update(session);
        });
        if (!taken) {
            return DispatchReport.IDLE; // another dispatcher took it first
        }
        return serve(client, leased, System.nanoTime());
    }

    private DispatchReport serve(ClientRecord client, long leasedUsn, long heldFrom) {
        List<Change> read = feed.changesAfter(client.position, config.batchSize());
        long position = read.isEmpty() ? client.position : read.get(read.size() - 1).position();
        ChangeFilter filter = ChangeCodec.decodeFilter(client.filter);
        List<Change> matched = read.stream().filter(filter::matches).toList();
        List<Change> out = config.coalesce() ? Coalescer.coalesce(read, filter::matches) : matched;
        boolean queue = DeliveryMode.QUEUE.name().equals(client.mode);
        long usn = leasedUsn;
        if (!queue && !out.isEmpty()) {
            FencedChangeSubscriber subscriber = feed.subscribers.get(client.name);
            // The call runs on a live lease, renewed while it runs: never started on a lease that lapsed
            // (a pause since the take), and never beside another dispatcher's call for the client.
            Runnable pause = beforeCall;
            if (pause != null) {
                pause.run();
            }
            Renewal renewal = new Renewal(client.name, leasedUsn);
            if (!renewal.renew()) {
                log.warn("{}: lost client {} before delivering (its lease lapsed and another dispatcher took it)", name, client.name);
                return new DispatchReport(client.name, read.size(), matched.size(), 0, client.position);
            }
            try {
                if (subscriber == null) {
                    throw new IllegalStateException("no subscriber in this process");
                }
                renewal.whileRunning(() -> subscriber.deliver(client.name, out, leasedUsn)); // the take's USN: only grows
            } catch (Exception e) {
                log.warn("{}: delivering {} changes to {} failed; they come again: {}", name, out.size(), client.name, e.toString());
                giveBack(client.name, renewal.usn(), client.position, List.of(), heldFrom);
                return new DispatchReport(client.name, read.size(), matched.size(), 0, client.position);
            }
            usn = renewal.usn();
        }
        boolean advanced = giveBack(client.name, usn, position, queue ? out : List.of(), heldFrom);
        if (!advanced) {
            log.warn("{}: lost client {} (its lease lapsed and another dispatcher took it); that one delivers again",
                    name, client.name);
        }
        return new DispatchReport(client.name, read.size(), matched.size(), advanced ? out.size() : 0, advanced ? position : client.position);
    }

    /** A subscriber's call, run while the client's lease is renewed. */
    private interface Call {
        void run() throws Exception;
    }

    /**
     * A client's lease held through a call: renewed before it starts and every third of a lease
     * while it runs, each renewal guarded by the USN the last one left (a renewal moves it on).
     */
    private final class Renewal {
        private final String client;
        private long usn;

        Renewal(String client, long usn) {
            this.client = client;
            this.usn = usn;
        }

        /** Extends the lease to a lease from now by the database clock; false if it lapsed or another took it. */
        synchronized boolean renew() {
            long was = usn;
            boolean renewed = feed.database.inTransaction(() -> name + " renewing client " + client, session -> {
                Instant now = feed.database.now();
                return feed.clientLease.renew(client, name, now.plus(config.lease()), now).ifUsn(was).update(session);
            });
            if (renewed) {
                usn = was + 1;
            }
            return renewed;
        }

        /** The USN the last renewal left; waits for one under way (its statement may have moved it). */
        synchronized long usn() {
            return usn;
        }

        void whileRunning(Call call) throws Exception {
            long period = Math.max(1, config.lease().toMillis() / 3);
            ScheduledFuture<?> beat = feed.heartbeats().scheduleWithFixedDelay(() -> {
                try {
                    renew();
                } catch (RuntimeException e) {
                    log.warn("{}: could not renew client {} while delivering: {}", name, client, e.toString());
                }
            }, period, period, TimeUnit.MILLISECONDS);
            try {
                call.run();
            } finally {
                beat.cancel(false);
            }
        }
    }

    /** Moves the position, touches and releases, and queues {@code toQueue}, in one transaction; false if the lease was lost. */
    private boolean giveBack(String client, long leasedUsn, long position, List<Change> toQueue, long heldFrom) {
        HoldListener listener = holdListener;
        if (listener != null) {
            listener.held(client, heldFrom, System.nanoTime());
        }
        return feed.database.inTransaction(() -> name + " moving client " + client + " to " + position, session -> {
            boolean ours = feed.clientLease.release(client, name).ifUsn(leasedUsn).set("feed_position", position)
                    .set("touched_at", feed.database.now()).update(session);
            if (!ours) {
                return false;
            }
            if (!toQueue.isEmpty()) {
                // One JDBC batch: Hibernate inserts IDENTITY rows one round trip at a time.
                session.doWork(connection -> {
                    try (PreparedStatement insert = connection.prepareStatement(
                            "INSERT INTO ts_feed_queue (client_name, change_json) VALUES (?, ?)")) {
                        for (Change c : toQueue) {
                            insert.setString(1, client);
                            insert.setString(2, ChangeCodec.encodeChange(c));
                            insert.addBatch();
                        }
                        insert.executeBatch();
                    }
                });
            }
            return true;
        });
    }

    @Override
    public synchronized void start() {
        if (thread != null) {
            throw EngineRuntimeException.badArgument("dispatcher " + name, "started", "already running");
        }
        stopping = false;
        feed.database.notifications().startListening(); // changes recorded by other processes wake it
        long until = config.maxRunTime() == null ? Long.MAX_VALUE : System.nanoTime() + config.maxRunTime().toNanos();
        thread = new Thread(() -> run(until), name);
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Passes until stopped. Idle, it waits for news — a change recorded here, or in another process
     * (PostgreSQL's notes; it says first that it waits, so that other processes send them) — or its
     * idle delay; after a failed pass, for its idle delay (at least 100 ms) or a stop.
     */
    private void run(long until) {
        WakeUps.Ticket news = feed.news.register(List.of(ChangeLog.CHANNEL, this));
        try {
            while (!stopping && System.nanoTime() - until < 0) {
                news.clearWakeUp(); // what was recorded before this pass, the pass sees
                long wait;
                try {
                    boolean idle = runOnce().isIdle();
                    failedPasses = 0;
                    // Said just now that it waits: a change committed before then sent no note, so look again first.
                    if (!idle || news.announceFor(config.idleDelay().toNanos())) {
                        continue;
                    }
                    idleWaits++;
                    wait = config.idleDelay().toNanos();
                } catch (RuntimeException e) {
                    failedPasses++;
                    log.warn("{}: pass failed: {}", name, e.toString());
                    wait = Math.max(TimeUnit.MILLISECONDS.toNanos(100), config.idleDelay().toNanos());
                }
                news.awaitWakeUp(wait);
                if (Thread.currentThread().isInterrupted()) {
                    return;
                }
            }
        } finally {
            news.closeUsed();
        }
    }

    /** Ends an idle wait now (or makes the next one return at once). */
    void wake() {
        feed.news.wake(this);
    }

    @Override
    public void stop() {
        Thread t;
        synchronized (this) {
            t = thread;
            stopping = true;
            thread = null;
        }
        wake();
        if (t != null) {
            try {
                t.join(60_000);
            } catch (InterruptedException e) {
                throw EngineRuntimeException.interrupted("stopping dispatcher " + name, e);
            }
        }
    }

    @Override
    public boolean isRunning() {
        Thread t = thread;
        return t != null && t.isAlive() && !stopping;
    }

    @Override
    public int failedPasses() {
        return failedPasses;
    }

    @Override
    public String toString() {
        return "ChangeDispatcher[" + name + ", " + config + "]";
    }
}
