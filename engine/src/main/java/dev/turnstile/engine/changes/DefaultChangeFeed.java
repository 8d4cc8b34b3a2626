package dev.turnstile.engine.changes;

import dev.turnstile.api.ClassDefinition;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.changes.Change;
import dev.turnstile.api.changes.ChangeDispatcher;
import dev.turnstile.api.changes.ChangeFeed;
import dev.turnstile.api.changes.ChangeFilter;
import dev.turnstile.api.changes.ChangeKind;
import dev.turnstile.api.changes.FencedChangeSubscriber;
import dev.turnstile.api.changes.ClientLag;
import dev.turnstile.api.changes.DeliveryMode;
import dev.turnstile.api.changes.DispatcherConfig;
import dev.turnstile.api.changes.QueuedChange;
import dev.turnstile.engine.db.Database;
import dev.turnstile.engine.db.Expiry;
import dev.turnstile.engine.db.GuardedWrite;
import dev.turnstile.engine.db.Lease;
import dev.turnstile.engine.db.WakeUps;
import dev.turnstile.engine.objects.ObjectStoreServices;
import dev.turnstile.engine.objects.Operations;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

/** The change feed on the engine's database; see {@link ChangeFeed}. */
public final class DefaultChangeFeed implements ChangeFeed {
    public static final List<Class<?>> ENTITIES = List.of(ChangeRecord.class, ClientRecord.class, SequencerRecord.class,
            QueueRecord.class);
    private static final AtomicInteger DISPATCHERS = new AtomicInteger();

    final Database database;
    /** A client's dispatch lease: the dispatcher holding it and until when. */
    final Lease clientLease = new Lease("ts_feed_client", "client_name", "holder", "lease_until");
    final Sequencer sequencer;
    final Map<String, FencedChangeSubscriber> subscribers = new ConcurrentHashMap<>();
    private final ObjectStore classes;
    private final boolean enabled;

    /**
     * The dispatchers' wake-ups: new changes (key {@link ChangeLog#CHANNEL}, told to other processes
     * on that topic) wake them all; a stop wakes one (its own key).
     */
    final WakeUps news;
    /** Renews the leases of clients whose subscribers' calls are running ({@link #heartbeats}); made on first use. */
    private ScheduledExecutorService heartbeats;

    /** The dispatchers made here, to stop when the engine closes (a dispatcher stops at most once more). */
    private final Set<DefaultChangeDispatcher> dispatchers = ConcurrentHashMap.newKeySet();

    /** Where the host observes each dispatch pass. */
    final Operations operations;

    public DefaultChangeFeed(Database database, ObjectStoreServices objects, boolean enabled) {
        this.operations = objects.operations;
        this.database = database;
        this.sequencer = new Sequencer(database);
        this.classes = objects.engineStore("turnstile");
        this.enabled = enabled;
        this.news = new WakeUps(database.waiting(), key -> ChangeLog.CHANNEL.equals(key) ? ChangeLog.CHANNEL : null);
        if (enabled) {
            objects.writeListener(new ChangeLog(database.notifications(), this::wakeDispatchers));
            database.notifications().listen(ChangeLog.CHANNEL, note -> wakeDispatchers());
        }
    }

    @Override
    public void registerClient(String name, ChangeFilter filter, DeliveryMode mode) {
        checkName(name);
        if (filter == null || mode == null) {
            throw EngineRuntimeException.badArgument("client " + name, filter + " " + mode, "a filter and a delivery mode are required");
        }
        checkFilter(name, filter);
        if (!enabled) {
            throw EngineRuntimeException.of(ExceptionCode.E_CONFIG_INVALID, "Client " + name + " would receive nothing:"
                    + " this engine does not record changes (set changes.enabled: true)");
        }
        long head = sequencer.sequence();
        Instant now = database.now();
        database.inTransaction(() -> "registering change feed client " + name, session -> {
            ClientRecord existing = session.get(ClientRecord.class, name);
            if (existing == null) {
                ClientRecord r = new ClientRecord();
                r.name = name;
                r.filter = ChangeCodec.encodeFilter(filter);
                r.mode = mode.name();
                r.position = head;
                r.touchedAt = now;
                session.insert(r);
            } else {
                GuardedWrite.of("ts_feed_client", "client_name", name).set("filter_json", ChangeCodec.encodeFilter(filter))
                        .set("delivery_mode", mode.name()).update(session);
            }
            return null;
        });
    }

    private void checkFilter(String client, ChangeFilter filter) {
        List<ClassDefinition> definitions = new ArrayList<>();
        for (String c : filter.classes()) {
            definitions.add(classes.getClassDefinition(c)); // E_CLASS_NOT_FOUND names it
        }
        for (String p : filter.properties()) {
            if (!definitions.isEmpty() && definitions.stream().noneMatch(d -> d.getPropertyDefinitionsByName().containsKey(p))) {
                throw EngineRuntimeException.of(ExceptionCode.E_PROPERTY_NOT_DEFINED, "The filter of client " + client
                        + " names property " + p + ", which none of its classes " + filter.classes() + " defines");
            }
        }
    }

    private static void checkName(String name) {
        if (name == null || !name.matches("[A-Za-z0-9_.-]{1,64}")) {
            throw EngineRuntimeException.badArgument("change feed client name", name, "1 to 64 letters, digits, '.', '_' or '-'");
        }
    }

    ClientRecord client(String name) {
        checkName(name);
        ClientRecord r = database.inTransaction(() -> "reading change feed client " + name,
                session -> session.get(ClientRecord.class, name));
        if (r == null) {
            throw EngineRuntimeException.of(ExceptionCode.E_OBJECT_NOT_FOUND, "No change feed client named " + name
                    + "; registered clients are " + clients());
        }
        return r;
    }

    @Override
    public void unregisterClient(String name) {
        client(name);
        database.inTransaction(() -> "removing change feed client " + name, session -> {
            session.createNativeMutationQuery("DELETE FROM ts_feed_queue WHERE client_name = :n").setParameter("n", name).executeUpdate();
            session.createNativeMutationQuery("DELETE FROM ts_feed_client WHERE client_name = :n").setParameter("n", name).executeUpdate();
            return null;
        });
        subscribers.remove(name);
    }

    @Override
    public List<String> clients() {
        return database.inTransaction(() -> "listing change feed clients", session ->
                session.createSelectionQuery("select c.name from ClientRecord c order by c.name", String.class).getResultList());
    }

    @Override
    public void subscribe(String client, FencedChangeSubscriber subscriber) {
        ClientRecord r = client(client);
        if (!DeliveryMode.CALLBACK.name().equals(r.mode)) {
            throw EngineRuntimeException.badArgument("subscriber for client " + client, r.mode,
                    "only a CALLBACK client has a subscriber; a QUEUE client is read with poll and acknowledge");
        }
        subscribers.put(client, subscriber);
    }

    @Override
    public ChangeDispatcher dispatcher(DispatcherConfig config) {
        String name = config.name() != null ? config.name()
                : "dispatcher-" + ProcessHandle.current().pid() + "-" + DISPATCHERS.incrementAndGet();
        DefaultChangeDispatcher d = new DefaultChangeDispatcher(this, config, name);
        dispatchers.add(d);
        return d;
    }

    @Override
    public List<ChangeDispatcher> dispatchers() {
        return List.copyOf(dispatchers);
    }

    /** New changes were recorded (here, or in another process): idle dispatchers make a pass now. */
    private void wakeDispatchers() {
        news.wake(ChangeLog.CHANNEL);
    }

    /** The thread that renews the leases of clients while their subscribers run. */
    synchronized ScheduledExecutorService heartbeats() {
        if (heartbeats == null) {
            heartbeats = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "turnstile-feed-heartbeats");
                t.setDaemon(true);
                return t;
            });
        }
        return heartbeats;
    }

    /** Stops every dispatcher this feed made (the engine is closing): none keeps running on a closed database. */
    public void stopDispatchers() {
        dispatchers.forEach(DefaultChangeDispatcher::stop);
        synchronized (this) {
            if (heartbeats != null) {
                heartbeats.shutdownNow();
                heartbeats = null;
            }
        }
    }

    @Override
    public List<QueuedChange> poll(String client, int max) {
        if (max <= 0) {
            throw EngineRuntimeException.badArgument("poll max", max, "at least 1");
        }
        checkName(client);
        List<QueueRecord> rows = database.inTransaction(() -> "polling the queue of " + client, session ->
                session.createSelectionQuery("from QueueRecord q where q.client = :c order by q.deliveryId", QueueRecord.class)
                        .setParameter("c", client).setMaxResults(max).getResultList());
        if (rows.isEmpty()) {
            client(client); // an empty queue, or no such client: only then is it worth a second read
        }
        return rows.stream().map(r -> new QueuedChange(r.deliveryId, ChangeCodec.decodeChange(r.change))).toList();
    }

    @Override
    public void acknowledge(String client, Collection<Long> deliveryIds) {
        checkName(client);
        int removed = deliveryIds.isEmpty() ? 0 : database.inTransaction(() -> "acknowledging deliveries to " + client, session ->
                session.createNativeMutationQuery("DELETE FROM ts_feed_queue WHERE client_name = :c AND delivery_id IN (:ids)")
                        .setParameter("c", client).setParameterList("ids", List.copyOf(deliveryIds)).executeUpdate());
        if (removed == 0) {
            client(client); // nothing removed: ids already acknowledged, or no such client
        }
    }

    @Override
    public ClientLag lag(String client) {
        return lag(client(client));
    }

    @Override
    public List<ClientLag> lag() {
        List<ClientRecord> all = database.inTransaction(() -> "reading change feed clients", session ->
                session.createSelectionQuery("from ClientRecord c order by c.name", ClientRecord.class).getResultList());
        List<ClientLag> out = new ArrayList<>(all.size());
        for (int from = 0; from < all.size(); from += LAG_CLIENTS_PER_QUERY) {
            out.addAll(lag(all.subList(from, Math.min(all.size(), from + LAG_CLIENTS_PER_QUERY))));
        }
        return out;
    }

    private ClientLag lag(ClientRecord r) {
        return lag(List.of(r)).get(0);
    }

    /** Clients whose lag one query measures: one branch of a UNION ALL each, so one round trip for all of them. */
    static final int LAG_CLIENTS_PER_QUERY = 50;

    /**
     * The lag of each client: its pending changes (after its position, or not yet sequenced, and
     * matching its filter) and the oldest one's time — one count per client, all in one query.
     */
    private List<ClientLag> lag(List<ClientRecord> clients) {
        StringBuilder hql = new StringBuilder();
        List<ChangeFilter> filters = new ArrayList<>();
        for (int i = 0; i < clients.size(); i++) {
            ChangeFilter f = ChangeCodec.decodeFilter(clients.get(i).filter);
            filters.add(f);
            hql.append(i == 0 ? "" : " union all ").append("select ").append(i).append(", count(c), min(c.changedAt)")
                    .append(" from ChangeRecord c where (c.position > :pos").append(i).append(" or c.position is null)");
            if (!f.classes().isEmpty()) {
                hql.append(" and c.className in :classes").append(i);
            }
            if (!f.kinds().isEmpty()) {
                hql.append(" and c.kind in :kinds").append(i);
            }
        }
        Instant now = database.now();
        List<Object[]> rows = database.inTransaction(() -> "measuring the lag of " + clients.size() + " client(s)", session -> {
            var q = session.createSelectionQuery(hql.toString(), Object[].class);
            for (int i = 0; i < clients.size(); i++) {
                q.setParameter("pos" + i, clients.get(i).position);
                if (!filters.get(i).classes().isEmpty()) {
                    q.setParameterList("classes" + i, List.copyOf(filters.get(i).classes()));
                }
                if (!filters.get(i).kinds().isEmpty()) {
                    q.setParameterList("kinds" + i, filters.get(i).kinds().stream().map(ChangeKind::name).toList());
                }
            }
            return q.getResultList();
        });
        ClientLag[] out = new ClientLag[clients.size()];
        for (Object[] row : rows) {
            int i = ((Number) row[0]).intValue();
            ClientRecord r = clients.get(i);
            Instant oldest = (Instant) row[2];
            out[i] = new ClientLag(r.name, r.position, ((Number) row[1]).longValue(), oldest == null ? null : Duration.between(oldest, now),
                    r.touchedAt, Expiry.isHeld(r.leaseUntil, now) ? r.holder : null);
        }
        return List.of(out);
    }

    @Override
    public long prune(Duration retention, Duration grace) {
        if (retention == null || retention.isNegative() || grace == null || grace.isNegative()) {
            throw EngineRuntimeException.badArgument("prune retention and grace", retention + ", " + grace, "zero or more");
        }
        Instant now = database.now();
        long passed = database.inTransaction(() -> "finding what the change feed may prune", session -> {
            Long min = session.createNativeQuery("SELECT MIN(feed_position) FROM ts_feed_client", Long.class).getSingleResult();
            if (min == null) { // no clients: everything sequenced has been passed by all of them
                min = session.createNativeQuery("SELECT last_position FROM ts_change_sequencer WHERE id = 1", Long.class)
                        .getResultStream().findFirst().orElse(0L);
            }
            return min;
        });
        // Window by window of PRUNE_BATCH positions, from the first deletable change, a transaction
        // each: no delete holds locks on a whole backlog, and writers appending to the feed never
        // wait long behind one.
        String deletable = " feed_position > :after AND feed_position <= :passed AND changed_at < :retained AND sequenced_at < :graced";
        long pruned = 0;
        for (long after = Long.MIN_VALUE; ; ) {
            long from = after;
            long[] window = database.inTransaction(() -> "pruning the change feed after position " + from, session -> {
                Long first = session.createNativeQuery("SELECT MIN(feed_position) FROM ts_change WHERE" + deletable, Long.class)
                        .setParameter("after", from).setParameter("passed", passed).setParameter("retained", now.minus(retention))
                        .setParameter("graced", now.minus(grace)).getSingleResult();
                if (first == null) {
                    return null;
                }
                long last = Math.min(passed, first + PRUNE_BATCH - 1);
                int deleted = session.createNativeMutationQuery("DELETE FROM ts_change WHERE" + deletable)
                        .setParameter("after", first - 1).setParameter("passed", last).setParameter("retained", now.minus(retention))
                        .setParameter("graced", now.minus(grace)).executeUpdate();
                return new long[] {last, deleted};
            });
            if (window == null) {
                return pruned;
            }
            after = window[0];
            pruned += window[1];
        }
    }

    /** Changes deleted per transaction by {@link #prune}. */
    static final int PRUNE_BATCH = 1_000;

    /** The sequenced changes after {@code position}, up to {@code max}, in feed order. */
    List<Change> changesAfter(long position, int max) {
        List<ChangeRecord> rows = database.inTransaction(() -> "reading changes after " + position, session ->
                session.createSelectionQuery("from ChangeRecord c where c.position > :p order by c.position", ChangeRecord.class)
                        .setParameter("p", position).setMaxResults(max).getResultList());
        return rows.stream().map(r -> new Change(List.of(r.changeId), r.position, r.objectId, r.className, r.user, r.changedAt,
                ChangeKind.valueOf(r.kind), r.usnBefore, r.usnAfter, ChangeCodec.decodeProperties(r.properties))).toList();
    }
}
