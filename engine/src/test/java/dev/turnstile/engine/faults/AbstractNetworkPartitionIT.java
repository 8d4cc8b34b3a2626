package dev.turnstile.engine.faults;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.dispenser.Dispenser;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.DispensersConfig;
import dev.turnstile.engine.ChildJvm;
import dev.turnstile.engine.EngineInternals;
import dev.turnstile.engine.MutableClock;
import dev.turnstile.engine.locks.LockWorker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Issue 44: a network partition between one application node and the database, made with a network
 * namespace ({@link NetworkPartition}): the node's packets are dropped, not refused, and the
 * database sees its sessions idle. The cut-off node issues nothing and holds nothing the others
 * need; they go on; what it sent into the cut arrives after the heal and is fenced; it resumes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractNetworkPartitionIT {
    private static final Duration STARTUP = Duration.ofSeconds(60);
    private final MutableClock clock = new MutableClock(Instant.now());
    private ContentEngine engine;
    private ObjectStore os;

    protected abstract EngineConfig config();

    @BeforeAll
    void open() {
        org.junit.jupiter.api.Assumptions.assumeTrue(NetworkPartition.available(), "network namespaces need root and iproute2");
        engine = ContentEngine.open(EngineConfig.from(config()).clock(clock).build());
        os = engine.session("parent").objectStore();
    }

    @AfterAll
    void close() {
        if (engine != null) {
            engine.close();
        }
    }

    /** The cut-off node's view of the database: its URL through the partition's link. */
    private List<String> args(NetworkPartition net, String... more) {
        List<String> all = new ArrayList<>(List.of(net.url(config().jdbcUrl()), config().username(), config().password()));
        all.addAll(List.of(more));
        return all;
    }

    /** A new object of a class of its own, saved: what a test locks. */
    private CustomObject newObject(String prefix) {
        String cls = prefix + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        os.defineClass(cls, c -> c.integer32("Counter"));
        CustomObject o = os.createCustomObject(cls);
        o.save(RefreshMode.REFRESH);
        return o;
    }

    @Test
    void aHolderCutOff_whoseLockAnotherTakes_writesAfterTheHeal_andNothingOfItLands() throws Exception {
        CustomObject created = newObject("CutOff");
        String cls = created.getClassName();
        UUID id = created.getId();
        try (NetworkPartition net = new NetworkPartition(config().jdbcUrl());
             ChildJvm cutOff = ChildJvm.startIn(net.command(), LockWorker.class,
                     args(net, cls, id.toString(), "paused-writer", "30").toArray(String[]::new))) {
            cutOff.awaitLine("LOCKED"::equals, STARTUP);
            net.cut();
            cutOff.send("WRITE"); // its save, batch and unlock go out into the cut
            try {
                Instant expiry = os.fetchCustomObject(cls, id, PropertyFilter.ALL).getLockExpiry();
                clock.set(expiry.plusMillis(1)); // the cut-off holder's lock has lapsed, by the taker's clock
                CustomObject taken = os.getCustomObject(cls, id);
                taken.lock(30, "parent");
                taken.getProperties().putValue("Counter", 7);
                taken.save(RefreshMode.REFRESH);
            } finally {
                net.heal();
            }
            assertThat(cutOff.awaitLine(l -> l.startsWith("SAVE "), STARTUP)).isEqualTo("SAVE E_OBJECT_MODIFIED");
            assertThat(cutOff.awaitLine(l -> l.startsWith("BATCH "), STARTUP)).isEqualTo("BATCH E_OBJECT_MODIFIED");
            assertThat(cutOff.awaitLine(l -> l.startsWith("UNLOCK "), STARTUP)).isEqualTo("UNLOCK E_OBJECT_MODIFIED");
            cutOff.send("EXIT");
            assertThat(cutOff.awaitExit(STARTUP)).isZero();
        }
        CustomObject now = os.fetchCustomObject(cls, id, PropertyFilter.ALL);
        assertThat(now.getProperties().getInteger32Value("Counter")).as("the new holder's write, not the cut-off one's").isEqualTo(7);
        assertThat(now.getLockHolder()).isEqualTo("parent");
    }

    @Test
    void aNodeCutOffWhileNumbering_theOthersGoOn_noNumberIsIssuedTwice_andItResumesAfterTheHeal() throws Exception {
        String name = "cut-" + UUID.randomUUID().toString().substring(0, 8);
        engine.session("admin", Set.of(DispensersConfig.DEFAULT_ADMIN_ROLE)).dispensers().create(name, DispenserConfig.builder().build());
        Dispenser d = engine.session("parent").dispensers().get(name);
        List<Long> parents = new ArrayList<>();
        List<String> lines;
        try (NetworkPartition net = new NetworkPartition(config().jdbcUrl());
             ChildJvm cutOff = ChildJvm.startIn(net.command(), NumberingWorker.class, args(net, name, "4", "PT2S").toArray(String[]::new))) {
            NumberingWorker.awaitNumbers(cutOff, 20, STARTUP);
            net.cut();
            try {
                // The others go on: the cut-off node holds no row they need (on MariaDB, a take
                // is a transaction of three statements, and the cut can fall inside one).
                assertTimeoutPreemptively(Duration.ofMinutes(2), () -> {
                    for (int i = 0; i < 30; i++) {
                        parents.add(d.next());
                    }
                });
            } finally {
                net.heal();
            }
            NumberingWorker.awaitNumbers(cutOff, NumberingWorker.numbers(cutOff.lines()).size() + 20, STARTUP); // it resumes
            cutOff.send("STOP");
            cutOff.awaitLine("STOPPED"::equals, STARTUP);
            lines = cutOff.lines();
        }
        List<Long> childs = NumberingWorker.numbers(lines);
        Set<Long> all = new HashSet<>(childs);
        all.addAll(parents);
        assertThat(all).as("no number issued twice (the cut-off node's %d, the parent's %d)", childs.size(), parents.size())
                .hasSize(childs.size() + parents.size());
        assertThat(all).allMatch(n -> n >= 1 && n <= d.current());
    }

    /**
     * The database's side of a cut, or a pause, inside a transaction: a session of the engine's pool
     * idle in a transaction that holds a row lock. The database ends it after
     * {@code idleTransactionTimeout}, and another node's write goes through. Before, that write
     * waited until the server noticed the lost connection: on PostgreSQL for ever, on MariaDB until
     * each lock wait ran out (the numbering case above, when the cut fell inside a take, gave up after 100 s).
     */
    @Test
    void aTransactionLeftIdleOnTheEnginesPool_isEndedByTheDatabase_andAnotherNodesWriteGoesThrough() throws Exception {
        CustomObject o = newObject("Idle");
        String cls = o.getClassName();
        try (ContentEngine node = ContentEngine.open(EngineConfig.from(config()).idleTransactionTimeout(Duration.ofSeconds(1)).build());
             Connection idle = EngineInternals.database(node).dataSource().getConnection()) {
            idle.setAutoCommit(false);
            try (PreparedStatement lock = idle.prepareStatement("SELECT usn FROM ts_object WHERE id = ? FOR UPDATE")) {
                lock.setObject(1, config().jdbcUrl().startsWith("jdbc:postgresql:") ? o.getId() : o.getId().toString());
                lock.executeQuery().close();
            }
            o.getProperties().putValue("Counter", 5);
            assertTimeoutPreemptively(Duration.ofSeconds(40), () -> o.save(RefreshMode.REFRESH), "the write waited for the idle transaction");
            assertThatThrownBy(idle::commit).as("the database ended the idle session").isInstanceOf(SQLException.class);
        }
        assertThat(os.fetchCustomObject(cls, o.getId(), PropertyFilter.ALL).getProperties().getInteger32Value("Counter")).isEqualTo(5);
    }

}
