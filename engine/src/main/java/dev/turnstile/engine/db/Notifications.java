package dev.turnstile.engine.db;

import com.github.benmanes.caffeine.cache.Cache;
import org.hibernate.StatelessSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Wake-ups between the processes on one database: a release in one process wakes the waiters in
 * the others at once instead of at their next poll. On PostgreSQL a publisher sends
 * {@code pg_notify} inside its own transaction, so the note is delivered when (and only if) that
 * commits; one listening connection per engine hands what arrives to this process's listeners.
 * MariaDB and H2 have no notifications: there {@link #publish} does nothing and waiters wake by
 * their retry policy's waits, which grow from the first (adaptive polling).
 *
 * <p>A note can be lost — the listening connection broken by a restart, say — so listeners treat
 * one as a hint to look again, never as the state itself; after the connection is made again every
 * listener hears {@link #EVERYTHING}, since notes sent in between were missed.
 */
public final class Notifications implements AutoCloseable {
    /** The payload a listener hears when it may have missed notes: look at everything again. */
    public static final String EVERYTHING = "";
    /** PostgreSQL's limit for a payload is 8000 bytes; a longer one is sent as {@link #EVERYTHING}. */
    static final int MAX_PAYLOAD_BYTES = 7900;
    private static final Logger log = LoggerFactory.getLogger(Notifications.class);
    /** Until when a process's word that it has a waiter on a topic holds. */
    private static final Expiry WAITING = Expiry.in("waiting_until");

    private final boolean postgres;
    private final ConnectionSource listenerConnection;
    private final Map<String, List<Listener>> listeners = new ConcurrentHashMap<>();
    /**
     * The server processes of this engine's connections that sent a note lately (a minute), by
     * PostgreSQL's process id, which a note carries: so that {@link #listenToOthers} skips this
     * engine's own notes. Recorded before the statement runs, since its note can be heard before it returns.
     */
    private final Cache<Integer, Boolean> ownBackends = Caches.builder().expireAfterWrite(Duration.ofMinutes(1)).build();
    private volatile PostgresListener listener;
    /**
     * Until when (System.nanoTime) what this process last said of its waiters holds, by topic
     * ({@link #announceWaiting}); bounded, since a topic may be one object: one forgotten is said again.
     */
    private final Cache<String, Long> announcedUntil = Caches.builder().maximumSize(10_000).build();
    /** Locks striped by topic, under which this process says, or takes back, that it waits ({@link #announcing}). */
    private final Object[] announcing = java.util.stream.IntStream.range(0, 64).mapToObj(i -> new Object()).toArray();
    /** This process (this engine) in {@code ts_waiting}: random, so a restarted one is another. */
    private final String process = java.util.UUID.randomUUID().toString().substring(0, 13);
    private volatile boolean closed;

    /** Opens the one connection the listener holds, outside the engine's pool. */
    interface ConnectionSource {
        Connection open() throws SQLException;
    }

    Notifications(String productName, ConnectionSource listenerConnection) {
        this.postgres = Sql.isPostgres(productName);
        this.listenerConnection = listenerConnection;
    }

    /**
     * The rows of {@code ts_waiting} of other processes with a waiter on one of {@code topics}
     * topics; parameters: {@link #waiterParameters}. A row's key is the topic and the process; a
     * topic is what a waiter waits for — one object's unlock ({@code unlock <id>}), the releases
     * under one root of the tree locks, the changes — so that a process waiting for one object
     * counts for that object's unlocks only.
     */
    private static String otherProcessesWaiting(int topics) {
        return "(" + String.join(" OR ", java.util.Collections.nCopies(topics, "starts_with(channel, ?) AND channel <> ?"))
                + ") AND " + WAITING.heldAt("CURRENT_TIMESTAMP");
    }

    /** {@link #otherProcessesWaiting} for one topic, built once: every unlock's statement carries it. */
    private static final String ANOTHER_PROCESS_WAITING_ON_ONE = otherProcessesWaiting(1);

    /**
     * The SQL condition, for a publisher's statement, that another process has said it has a waiter
     * on one of {@code topics} topics ({@link #announceWaiting}), by the database's time;
     * parameters: {@link #waiterParameters}. A NOTIFY takes one lock for the whole database until its
     * transaction ends (PostgreSQL's async.c), so notes nobody listens for made every release of 16
     * threads wait for the others' commits (issue 16); this process's own waiters are woken without one.
     */
    public static String anotherProcessWaits(int topics) {
        return "EXISTS (SELECT 1 FROM ts_waiting WHERE " + otherProcessesWaiting(topics) + ")";
    }

    /** How much longer than its next wait a waiter says it waits: releases notify until then. */
    static final Duration ANNOUNCED_SLACK = Duration.ofSeconds(2);

    /** How long a lapsed row stays (a process killed never takes its own away); any announcement deletes older ones. */
    static final Duration LAPSED_KEPT = Duration.ofMinutes(10);

    /** The parameters of {@link #anotherProcessWaits} for a release on {@code topics}. */
    public Object[] waiterParameters(List<String> topics) {
        List<Object> parameters = new ArrayList<>();
        for (String topic : topics) {
            parameters.add(topic + " ");
            parameters.add(waiterKey(topic));
        }
        return parameters.toArray();
    }

    /** This process's row for {@code topic}: the topic and the process as one key (the table's, since version 4). */
    private String waiterKey(String topic) {
        return topic + " " + process;
    }

    /**
     * Whether this process must say (again) that it has a waiter on {@code topic} for {@code wait}
     * more: never on a database without notifications; else if what it last said lapses before then.
     */
    boolean mustAnnounceWaiting(String topic, Duration wait) {
        Long until = announcedUntil.getIfPresent(topic);
        return postgres && (until == null || until - (System.nanoTime() + wait.toNanos()) < 0);
    }

    /**
     * Says, in {@code session}, that this process has a waiter on {@code topic} for {@code wait}
     * and {@link #ANNOUNCED_SLACK} more, by the database's time; the same statement deletes rows
     * that lapsed {@link #LAPSED_KEPT} ago (processes gone).
     */
    void announceWaiting(StatelessSession session, String topic, Duration wait) {
        long saidAt = System.nanoTime();
        Duration said = wait.plus(ANNOUNCED_SLACK);
        Jdbc.run(session, "WITH lapsed AS (DELETE FROM ts_waiting WHERE "
                + WAITING.lapsedAt("CURRENT_TIMESTAMP - ? * INTERVAL '1 millisecond'") + ") INSERT INTO ts_waiting (channel, waiting_until)"
                + " VALUES (?, CURRENT_TIMESTAMP + ? * INTERVAL '1 millisecond') ON CONFLICT (channel)"
                + " DO UPDATE SET waiting_until = GREATEST(ts_waiting.waiting_until, EXCLUDED.waiting_until)", s -> {
            s.setLong(1, LAPSED_KEPT.toMillis());
            s.setString(2, waiterKey(topic));
            s.setLong(3, said.toMillis());
            return s.executeUpdate();
        });
        announcedUntil.asMap().merge(topic, saidAt + said.toNanos(), (a, b) -> a - b > 0 ? a : b);
    }

    /**
     * Whether what this process said of its waiters on {@code topic} stands long enough to be worth
     * a statement to take back once nobody here waits: more than twice {@link #ANNOUNCED_SLACK}
     * from now — a wait of seconds. Waiters that wait briefly and often (a hot lock) never take
     * theirs back: it lapses within the slack, and saying it again would cost a statement each time.
     */
    boolean mustWithdrawWaiting(String topic) {
        Long until = announcedUntil.getIfPresent(topic);
        return postgres && until != null && until - (System.nanoTime() + 2 * ANNOUNCED_SLACK.toNanos()) > 0;
    }

    /** Forgets what this process said of its waiters on {@code topic}: its next waiter says it again. */
    void forgetAnnounced(String topic) {
        announcedUntil.invalidate(topic);
    }

    /**
     * Takes back, in {@code session}, what this process said of its waiters on {@code topic}: releases
     * elsewhere stop notifying it, and stop handing it a turn it would never take.
     */
    void withdrawWaiting(StatelessSession session, String topic) {
        Jdbc.run(session, "DELETE FROM ts_waiting WHERE channel = ?", s -> {
            s.setString(1, waiterKey(topic));
            return s.executeUpdate();
        });
    }

    /**
     * The lock under which this process says, or takes back, that it has waiters on {@code topic}:
     * a withdrawal decided while nobody waited must not delete what a new waiter said after.
     */
    Object announcing(String topic) {
        return announcing[Math.floorMod(topic.hashCode(), announcing.length)];
    }

    /**
     * Sends {@code payload} on {@code channel} with {@code session}'s transaction: delivered to
     * every engine on the database when it commits, to none if it rolls back.
     */
    public void publish(StatelessSession session, String channel, String payload) {
        if (!postgres) {
            return;
        }
        String sent = sendable(payload);
        session.doWork(c -> {
            try (PreparedStatement s = c.prepareStatement("SELECT pg_notify(?, ?)")) {
                s.setString(1, channel);
                s.setString(2, sent);
                s.execute();
            }
        });
    }

    /**
     * Runs a data-changing SQL statement whose parameters are {@code parameters} (the {@code ?}s of
     * {@code sql}, in order) and returns the rows it changed; on a database with
     * notifications the same statement also sends {@code payload} on {@code channel} if it changed a
     * row and another process has said it has a waiter on {@code topic}
     * ({@link #anotherProcessWaits}: its waiters must say so first), delivered when the
     * transaction commits — a wake-up that costs no round trip; it returns how many such processes
     * it told. By plain JDBC ({@link Jdbc#run}): Hibernate mapped the native query's result
     * afresh on every execution, most of an unlock's CPU in a profile of lock+unlock pairs (issue 16,
     * item 5).
     */
    public Written executeAndNotify(StatelessSession session, String sql, List<GuardedWrite.Parameter> parameters,
                                    String channel, String topic, String payload) {
        if (!postgres) {
            return new Written(GuardedWrite.executeUpdate(session, sql, parameters), 0);
        }
        // The CASE keeps pg_notify (volatile) from running when nobody waits.
        String notifying = sql + " RETURNING (SELECT CASE WHEN count(*) = 0 THEN 0"
                + " WHEN pg_notify(?, ?) IS NOT NULL THEN count(*) END FROM ts_waiting WHERE "
                + ANOTHER_PROCESS_WAITING_ON_ONE + ")";
        return Jdbc.run(session, notifying, s -> {
            ownBackends.put(PostgresListener.backendPid(s.getConnection()), Boolean.TRUE);
            int i = 1;
            for (GuardedWrite.Parameter p : parameters) {
                p.bind(session, s, i++);
            }
            s.setString(i++, channel);
            s.setString(i++, sendable(payload));
            for (Object p : waiterParameters(List.of(topic))) {
                s.setObject(i++, p);
            }
            int rows = 0;
            int notified = 0;
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    rows++;
                    notified = rs.getInt(1);
                }
            }
            return new Written(rows, notified);
        });
    }

    /** The rows a statement wrote, and how many other processes with a waiter it notified. */
    public record Written(int rows, int processesNotified) {
    }

    /** The payload as sent: too long a one becomes {@link #EVERYTHING}. */
    public static String sendable(String payload) {
        return payload.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_PAYLOAD_BYTES ? EVERYTHING : payload;
    }

    /**
     * Calls {@code listener} with the payload of every note on {@code channel}, on the listening
     * thread, once {@link #startListening} has been called. Capabilities register their channels
     * as the engine opens, before anything can wait: the listener LISTENs on those it knows when it
     * connects.
     */
    public void listen(String channel, Consumer<String> listener) {
        listen(channel, new Listener(listener, false));
    }

    /**
     * As {@link #listen}, for the notes other engines send only: this engine's own (which the sender
     * handled here already — its own waiters are woken without a note) are not delivered.
     */
    public void listenToOthers(String channel, Consumer<String> listener) {
        listen(channel, new Listener(listener, true));
    }

    private void listen(String channel, Listener listener) {
        if (this.listener != null) {
            throw new IllegalStateException("channel " + channel + " registered after the listener started");
        }
        listeners.computeIfAbsent(channel, c -> new CopyOnWriteArrayList<>()).add(listener);
    }

    private record Listener(Consumer<String> consumer, boolean othersOnly) {
    }

    /**
     * Makes sure notes are being received, for a waiter about to wait. Lazily, so that an engine
     * that never waits holds no listening connection (each is one of the database's sessions);
     * the first wait's listeners hear {@link #EVERYTHING} once the connection is made, so a
     * release before that is not missed.
     */
    public void startListening() {
        if (postgres && listener == null) {
            start();
        }
    }

    private synchronized void start() {
        if (listener == null && !closed) {
            listener = new PostgresListener(this, listenerConnection);
            listener.start();
        }
    }

    java.util.Set<String> channels() {
        return listeners.keySet();
    }

    boolean isClosed() {
        return closed;
    }

    /** A note from the server process {@code senderPid} (0: none, as for {@link #EVERYTHING}). */
    void deliver(String channel, String payload, int senderPid) {
        boolean own = senderPid != 0 && ownBackends.getIfPresent(senderPid) != null;
        for (Listener l : listeners.getOrDefault(channel, List.of())) {
            if (own && l.othersOnly()) {
                continue;
            }
            try {
                l.consumer().accept(payload);
            } catch (RuntimeException e) {
                log.warn("A listener of {} failed on a note", channel, e);
            }
        }
    }

    /** After the listening connection was made (again): every listener looks at everything. */
    void deliverEverything() {
        listeners.forEach((channel, ls) -> deliver(channel, EVERYTHING, 0));
    }

    @Override
    public synchronized void close() {
        closed = true;
        PostgresListener l = listener;
        if (l != null) {
            l.stop();
        }
    }
}
