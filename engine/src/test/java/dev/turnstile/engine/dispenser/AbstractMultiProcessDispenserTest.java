package dev.turnstile.engine.dispenser;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.DispenserStrategy;
import dev.turnstile.api.dispenser.DispensersConfig;
import dev.turnstile.engine.ChildJvm;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Tag;

import static org.assertj.core.api.Assertions.assertThat;

/** Dispensers between real processes: every strategy, and numbering inside creations while processes are killed. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("multi-process")
public abstract class AbstractMultiProcessDispenserTest {
    private static final Duration STARTUP = Duration.ofSeconds(60);
    private static final Duration RUN = Duration.ofMinutes(5);
    private static final int PROCESSES = 4;
    private ContentEngine engine;

    protected abstract EngineConfig config();

    /** The database child process {@code process} opens: the one database, or on a cluster a node of its own. */
    protected EngineConfig config(int process) {
        return config();
    }

    /** Numbers each of the four processes takes in the exact-set test: a multiple of its 4 threads. */
    protected int perProcess() {
        return 500;
    }

    @BeforeAll
    void open() {
        engine = ContentEngine.open(config());
    }

    @AfterAll
    void close() {
        engine.close();
    }

    private String[] args(int process, String... more) {
        EngineConfig node = config(process);
        List<String> all = new ArrayList<>(List.of(node.jdbcUrl(), node.username(), node.password()));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    private String newDispenser() {
        String name = "mp-" + UUID.randomUUID().toString().substring(0, 8);
        engine.session("admin", Set.of(DispensersConfig.DEFAULT_ADMIN_ROLE)).dispensers()
                .create(name, DispenserConfig.ofDefaults());
        return name;
    }

    /** The numbers {@code processes} child JVMs of {@code threads} threads took, {@code each} per process, started together. */
    private List<Long> takeInProcesses(String name, String strategy, int processes, int threads, int each) throws Exception {
        List<ChildJvm> children = new ArrayList<>();
        try {
            for (int i = 0; i < processes; i++) {
                children.add(ChildJvm.start(DispenserWorker.class, args(i, name, "take", strategy, "" + threads, "" + each)));
            }
            children.forEach(c -> c.awaitLine("READY"::equals, STARTUP));
            children.forEach(c -> c.send("GO"));
            List<Long> all = new ArrayList<>();
            for (ChildJvm c : children) {
                c.awaitLine("DONE"::equals, RUN);
                c.lines().stream().filter(l -> l.startsWith("N ")).forEach(l -> all.add(Long.parseLong(l.substring(2))));
            }
            return all;
        } finally {
            children.forEach(ChildJvm::close);
        }
    }

    @ParameterizedTest
    @EnumSource(DispenserStrategy.class)
    void fourProcesses_getExactlyOneToN(DispenserStrategy strategy) throws Exception {
        int n = PROCESSES * perProcess();
        List<Long> all = takeInProcesses(newDispenser(), strategy.name(), PROCESSES, 4, perProcess());
        assertThat(all).hasSize(n);
        assertThat(new HashSet<>(all)).as(() -> "no duplicate" + TestDatabases.serverLog(config())).hasSize(n);
        assertThat(all.stream().mapToLong(Long::longValue).max().orElseThrow()).as("no gap").isEqualTo(n);
    }

    /**
     * The run that once handed out number 11 twice (2 JVMs x 8 threads x 125, first writer wins,
     * feeling unlucky). {@code -Dturnstile.hunt.rounds=N} repeats it N times to hunt a rare race.
     */
    @Test
    void twoProcessesFeelingUnlucky_neverHandOutANumberTwice() throws Exception {
        int rounds = Integer.getInteger("turnstile.hunt.rounds", 1);
        for (int round = 0; round < rounds; round++) {
            String name = newDispenser();
            List<Long> all = takeInProcesses(name, "FIRST_WRITER_WINS+unlucky", 2, 8, 1000);
            long counter = engine.session("admin", Set.of(DispensersConfig.DEFAULT_ADMIN_ROLE)).dispensers().get(name).current();
            int r = round;
            assertThat(all).as(() -> "round " + r + ": no duplicate" + TestDatabases.serverLog(config())).doesNotHaveDuplicates().hasSize(2000);
            assertThat(counter).as("round %d: the counter agrees", round).isEqualTo(2000);
        }
    }

    @Test
    void numberingInsideCreations_survivesKilledProcessesAndFailedCreations_withNoGap() throws Exception {
        String name = newDispenser();
        String cls = "KillInvoice" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        engine.session("admin").objectStore().defineClass(cls, c -> c.superclass("Document").int64("InvoiceNumber").bool("Fail"));
        List<ChildJvm> steady = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                steady.add(ChildJvm.start(DispenserWorker.class, args(i, name, "create", cls, "60")));
            }
            for (int kill = 0; kill < 3; kill++) {
                try (ChildJvm victim = ChildJvm.start(DispenserWorker.class, args(kill, name, "create", cls, "-1"))) {
                    victim.awaitLine("READY"::equals, STARTUP);
                    int seen = kill;
                    victim.awaitLine(l -> l.startsWith("CREATED") && victim.countLines(x -> x.startsWith("CREATED")) >= 8 + seen, RUN);
                    victim.kill();
                }
            }
            for (ChildJvm c : steady) {
                c.awaitLine("DONE"::equals, RUN);
            }
        } finally {
            steady.forEach(ChildJvm::close);
        }
        List<Long> numbers = TestDatabases.int64Values(config(), cls, "InvoiceNumber");
        assertThat(numbers).as("the steady processes alone committed 3 × 48").hasSizeGreaterThanOrEqualTo(3 * 48);
        assertThat(numbers).as("exactly 1..N on the committed documents").isEqualTo(
                java.util.stream.LongStream.rangeClosed(1, numbers.size()).boxed().toList());
    }
}
