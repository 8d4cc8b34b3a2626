package dev.turnstile.engine.db;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.net.InetAddress;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Engines writing through more than one node of a Galera cluster, refused and warned of. Galera
 * can lose a commit it acknowledged when two nodes write the same row (README, "A MariaDB Galera
 * cluster"): the supported setup is a single writer, which nothing in the cluster enforces. So each
 * engine records in {@code ts_writer_node} the node one of its connections writes through (one
 * record per engine: a failover moves it), leased for {@link #LEASE} by the database's clock in the
 * statement and stamped with the cluster's configuration ({@code wsrep_cluster_conf_id}, the same
 * on every member, one more at each change of membership), at open and then about every
 * {@link #PERIOD} after one of its own transactions ends. Only records of the current
 * configuration count: a dead node's engines, recorded before it left, are not writers beside the
 * node they fail over to. An engine that would write through another node than the live records
 * name is refused at open, unless {@code severalGaleraWriters}; at any later note, live records on
 * more than one node are warned of, naming the nodes and the engines on each (once per such set,
 * and once when they are back on one node). A connection sampled now and then, not every one: a
 * second writer that lasts a few periods is seen, one that writes for a moment may not be.
 */
final class GaleraWriterNodes {
    private static final Logger log = LoggerFactory.getLogger(GaleraWriterNodes.class);
    /** How often an engine that works records its node. */
    static final Duration PERIOD = Duration.ofSeconds(10);
    /** How long a record counts: three periods, so an engine that works is never missed between two. */
    static final Duration LEASE = PERIOD.multipliedBy(3);
    /** Records of engines gone this long are deleted (an engine that closes deletes its own). */
    private static final Duration FORGOTTEN = Duration.ofDays(1);
    private static final String NODE = "CONCAT(@@wsrep_node_name, ' (', @@hostname, ':', @@port, ')')";

    private final DataSource dataSource;
    private final String engine;
    private final AtomicLong nextNote = new AtomicLong();
    /** The nodes last warned of, or null while the engines write through one node. */
    private Set<String> warnedOf;

    private GaleraWriterNodes(DataSource dataSource, String engine) {
        this.dataSource = dataSource;
        this.engine = engine;
    }

    /**
     * Records the engine's node now, for a pool on a Galera node ({@link Galera#checkCausalReads});
     * refuses it, recording nothing, where other engines write through another node, unless
     * {@code severalWriters}.
     */
    static GaleraWriterNodes recordedFrom(DataSource dataSource, boolean severalWriters, String where) {
        GaleraWriterNodes nodes = new GaleraWriterNodes(dataSource, engineName());
        Map<String, Set<String>> writers = nodes.record();
        if (!severalWriters && writers != null && writers.size() > 1) {
            nodes.forget();
            throw EngineRuntimeException.of(ExceptionCode.E_CONFIG_INVALID, "Cannot open Turnstile on " + where
                    + ": engines would write through " + writers.size() + " nodes of one Galera cluster: " + describe(writers)
                    + " (this one: " + nodes.engine + "). " + RISK + " To accept that risk, set database.severalGaleraWriters:"
                    + " true (EngineConfig.Builder.severalGaleraWriters).");
        }
        if (writers != null) {
            nodes.check(writers);
        }
        return nodes;
    }

    private static final String RISK = "Galera can lose a commit it acknowledged when two nodes write the same row, and then"
            + " a number is issued twice or a lock has two holders. Give every engine the same failover URL, hosts in the same"
            + " order (jdbc:mariadb:sequential://db1,db2,db3/...), or a proxy that sends every write to one node (README,"
            + " \"A MariaDB Galera cluster\").";

    /** "pid 4242 on app1, engine 1a2b3c4d": a process may open several engines. */
    private static String engineName() {
        String host = System.getenv("HOSTNAME"); // set in most containers and shells: no name lookup
        if (host == null || host.isBlank()) {
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (java.io.IOException e) {
                host = "an unnamed host";
            }
        }
        String name = "pid " + ProcessHandle.current().pid() + " on " + host + ", engine " + UUID.randomUUID().toString().substring(0, 8);
        return name.length() <= 128 ? name : name.substring(name.length() - 128);
    }

    /** After one of the engine's transactions: records and checks its node if a period has passed since the last time. */
    void nowAndThen() {
        long due = nextNote.get();
        if (System.nanoTime() - due >= 0 && nextNote.compareAndSet(due, System.nanoTime() + PERIOD.toNanos())) {
            noteNow();
        }
    }

    /** Records the node a connection of the pool writes through, and warns if live records name more than one. */
    void noteNow() {
        Map<String, Set<String>> writers = record();
        if (writers != null) {
            check(writers);
        }
    }

    /** Records the engine's node; the live writers by node, or null if the database could not say. */
    private Map<String, Set<String>> record() {
        nextNote.set(System.nanoTime() + PERIOD.toNanos());
        return autocommitted("record the Galera node it writes through", c -> {
            long configuration = clusterConfiguration(c);
            // One record per engine: after a failover its old node is not a second writer.
            execute(c, "DELETE FROM ts_writer_node WHERE engine_id = ? AND node_name <> " + NODE, engine);
            try (PreparedStatement s = c.prepareStatement("INSERT INTO ts_writer_node (engine_id, node_name, seen_until,"
                    + " cluster_conf) VALUES (?, " + NODE + ", UTC_TIMESTAMP(6) + INTERVAL " + LEASE.toSeconds() + " SECOND, ?)"
                    + " ON DUPLICATE KEY UPDATE seen_until = VALUES(seen_until), cluster_conf = VALUES(cluster_conf)")) {
                s.setString(1, engine);
                s.setLong(2, configuration);
                s.executeUpdate();
            }
            execute(c, "DELETE FROM ts_writer_node WHERE seen_until < UTC_TIMESTAMP(6) - INTERVAL "
                    + FORGOTTEN.toSeconds() + " SECOND");
            return liveWriters(c, configuration);
        });
    }

    /** The cluster's configuration: one more at each change of its membership, the same on every member. */
    private static long clusterConfiguration(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SHOW STATUS LIKE 'wsrep_cluster_conf_id'"); ResultSet rs = s.executeQuery()) {
            return rs.next() ? rs.getLong(2) : 0;
        }
    }

    /** Deletes this engine's records, which would otherwise count for {@link #LEASE} after it closed. */
    void forget() {
        autocommitted("delete its Galera node records", c -> execute(c, "DELETE FROM ts_writer_node WHERE engine_id = ?", engine));
    }

    private interface ConnectionWork<T> {
        T run(Connection c) throws SQLException;
    }

    /**
     * Statements that each commit alone, on a connection of the pool; a failure is only logged (the
     * next period tries again), and answers null.
     */
    private <T> T autocommitted(String doing, ConnectionWork<T> work) {
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(true);
            try {
                return work.run(c);
            } finally {
                c.setAutoCommit(autoCommit);
            }
        } catch (SQLException | RuntimeException e) { // never the engine's work's failure
            log.debug("Engine {} could not {}", engine, doing, e);
            return null;
        }
    }

    private static int execute(Connection c, String sql, String... parameters) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                s.setString(i + 1, parameters[i]);
            }
            return s.executeUpdate();
        }
    }

    /** The engines of each node whose record is live by the database's clock and of the cluster's configuration, by node name. */
    private static Map<String, Set<String>> liveWriters(Connection c, long configuration) throws SQLException {
        Map<String, Set<String>> writers = new TreeMap<>();
        try (PreparedStatement s = c.prepareStatement("SELECT node_name, engine_id FROM ts_writer_node"
                + " WHERE seen_until >= UTC_TIMESTAMP(6) AND cluster_conf = ?")) {
            s.setLong(1, configuration);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    writers.computeIfAbsent(rs.getString(1), node -> new TreeSet<>()).add(rs.getString(2));
                }
            }
        }
        return writers;
    }

    private synchronized void check(Map<String, Set<String>> writers) {
        if (writers.size() > 1 && !writers.keySet().equals(warnedOf)) {
            warnedOf = writers.keySet();
            log.warn("Turnstile engines write through {} nodes of one Galera cluster: {}. {}", writers.size(), describe(writers), RISK);
        } else if (writers.size() <= 1 && warnedOf != null) {
            warnedOf = null;
            log.info("Turnstile engines write through one Galera node again: {}", describe(writers));
        }
    }

    private static String describe(Map<String, Set<String>> writers) {
        StringBuilder text = new StringBuilder();
        writers.forEach((node, engines) -> text.append(text.isEmpty() ? "" : "; ").append(node).append(" by ")
                .append(String.join(", ", engines)));
        return text.toString();
    }
}
