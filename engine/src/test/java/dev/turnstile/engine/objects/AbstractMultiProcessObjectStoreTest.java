package dev.turnstile.engine.objects;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.engine.ChildJvm;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Tag;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * First-writer-wins across real processes: child JVMs, each with its own engine and pool, share
 * one database with this test's engine.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("multi-process")
public abstract class AbstractMultiProcessObjectStoreTest {
    private static final Duration STARTUP = Duration.ofSeconds(60);
    private static final Duration RUN = Duration.ofMinutes(3);

    private ContentEngine engine;
    private ObjectStore os;

    protected abstract EngineConfig config();

    /** The database child process {@code process} opens: the one database, or on a cluster a node of its own. */
    protected EngineConfig config(int process) {
        return config();
    }

    private final List<EngineConfig> created = new ArrayList<>();

    /** A database with no Turnstile schema yet, for the concurrent first-open test: a new one on the server. */
    private EngineConfig freshDatabase() throws Exception {
        EngineConfig fresh = TestDatabases.ownDatabase(config(), "ts_fresh");
        created.add(fresh);
        return fresh;
    }

    @BeforeAll
    void open() {
        engine = ContentEngine.open(config());
        os = engine.session("parent").objectStore();
    }

    @AfterAll
    void close() throws Exception {
        engine.close();
        for (EngineConfig fresh : created) {
            TestDatabases.dropOwnDatabase(config(), fresh);
        }
    }

    private UUID newCounter(String className) {
        os.defineClass(className, c -> c.integer32("Counter"));
        CustomObject o = os.createCustomObject(className);
        o.getProperties().putValue("Counter", 0);
        o.save(RefreshMode.REFRESH);
        return o.getId();
    }

    private static String[] args(EngineConfig config, String... more) {
        List<String> all = new ArrayList<>(List.of(config.jdbcUrl(), config.username(), config.password()));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    private static void startTogether(List<ChildJvm> children) {
        for (ChildJvm child : children) {
            child.awaitLine("READY"::equals, STARTUP);
        }
        children.forEach(child -> child.send("GO"));
    }

    /** The values a child reported as committed. */
    private static List<Integer> committed(ChildJvm child) {
        return child.lines().stream().filter(l -> l.startsWith("OK ")).map(l -> Integer.parseInt(l.substring(3))).toList();
    }

    /**
     * The article's listings as it writes them, 2 processes × 8 threads: every number a call
     * returned is unique, and together they are exactly 1..counter (a call that ran out of the
     * listing's 10 attempts took no number).
     */
    @ParameterizedTest
    @ValueSource(strings = {"LISTING2", "LISTING3", "LISTING3_UNLUCKY"})
    void articleListingsPortedLineByLine_issueNoDuplicateAndNoGap(String listing) throws Exception {
        String cls = AbstractObjectStoreContractTest.uniqueName("Wjc");
        os.defineClass(cls, c -> c.integer32("WjcCounter"));
        CustomObject counter = os.createCustomObject(cls);
        counter.getProperties().putValue("WjcCounter", 0);
        counter.save(RefreshMode.REFRESH);
        List<ChildJvm> children = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                children.add(ChildJvm.start(ArticleListingWorker.class,
                        args(config(i), cls, counter.getId().toString(), listing, "8", "25")));
            }
            startTogether(children);
            List<Integer> numbers = new ArrayList<>();
            Map<Integer, List<String>> reports = new TreeMap<>();
            for (int i = 0; i < children.size(); i++) {
                ChildJvm child = children.get(i);
                child.awaitLine("DONE"::equals, RUN);
                for (String line : child.lines().stream().filter(l -> l.startsWith("N ")).toList()) {
                    int n = Integer.parseInt(line.split(" ")[1]);
                    numbers.add(n);
                    reports.computeIfAbsent(n, k -> new ArrayList<>()).add("process " + i + ": " + line);
                }
            }
            int stored = os.fetchCustomObject(cls, counter.getId(), PropertyFilter.ALL).getProperties()
                    .getInteger32Value("WjcCounter");
            // Each number given twice, with the USN each save left: one USN twice means two saves
            // were both let through over it; two USNs, that the counter went back.
            assertThat(reports.values().stream().filter(r -> r.size() > 1).toList())
                    .as(() -> "no duplicate (" + listing + ")" + TestDatabases.serverLog(config())).isEmpty();
            assertThat(numbers.stream().sorted().toList()).as("no gap: exactly 1..%d", stored)
                    .isEqualTo(java.util.stream.IntStream.rangeClosed(1, stored).boxed().toList());
        } finally {
            children.forEach(ChildJvm::close);
        }
    }

    @Test
    void threeProcessesIncrementingOneObject_loseNoUpdate() throws Exception {
        String cls = AbstractObjectStoreContractTest.uniqueName("Shared");
        UUID id = newCounter(cls);
        int perProcess = 300;
        List<ChildJvm> children = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                children.add(ChildJvm.start(IncrementWorker.class, args(config(i), cls, id.toString(), "" + perProcess)));
            }
            startTogether(children);
            for (ChildJvm child : children) {
                child.awaitLine(l -> l.startsWith("DONE "), RUN);
                assertThat(child.awaitExit(STARTUP)).isZero();
            }
            Set<Integer> all = new HashSet<>();
            for (ChildJvm child : children) {
                all.addAll(committed(child));
            }
            CustomObject end = os.fetchCustomObject(cls, id, PropertyFilter.ALL);
            assertThat(all).hasSize(3 * perProcess);
            assertThat(end.getProperties().getInteger32Value("Counter")).isEqualTo(3 * perProcess);
            assertThat(end.getUpdateSequenceNumber()).isEqualTo((long) (3 * perProcess));
        } finally {
            for (ChildJvm child : children) {
                child.close();
            }
        }
    }

    @Test
    void processKilledMidLoop_losesNoCommittedUpdate_andLeavesTheDatabaseUsable() throws Exception {
        String cls = AbstractObjectStoreContractTest.uniqueName("Killed");
        UUID id = newCounter(cls);
        int survivorsCount = 300;
        List<ChildJvm> children = new ArrayList<>();
        try {
            ChildJvm victim = ChildJvm.start(IncrementWorker.class, args(config(0), cls, id.toString(), "-1"));
            children.add(victim);
            for (int i = 0; i < 2; i++) {
                children.add(ChildJvm.start(IncrementWorker.class, args(config(i + 1), cls, id.toString(), "" + survivorsCount)));
            }
            startTogether(children);
            victim.awaitLine(l -> l.equals("OK 150") || (l.startsWith("OK ") && Integer.parseInt(l.substring(3)) > 150), RUN);
            victim.kill();
            for (ChildJvm survivor : children.subList(1, 3)) {
                survivor.awaitLine(l -> l.startsWith("DONE "), RUN);
                assertThat(survivor.awaitExit(STARTUP)).isZero();
            }

            List<Integer> reported = new ArrayList<>();
            children.forEach(c -> reported.addAll(committed(c)));
            Set<Integer> distinct = new HashSet<>(reported);
            assertThat(distinct).as("no two processes committed the same increment").hasSize(reported.size());
            CustomObject end = os.fetchCustomObject(cls, id, PropertyFilter.ALL);
            int value = end.getProperties().getInteger32Value("Counter");
            // The victim may have committed one save it had no time to report.
            assertThat(value).isBetween(reported.size(), reported.size() + 1);
            assertThat(end.getUpdateSequenceNumber()).isEqualTo((long) value);
            assertThat(distinct).allMatch(v -> v >= 1 && v <= value);

            end.getProperties().putValue("Counter", value + 1);
            end.save(RefreshMode.REFRESH);
            assertThat(end.getUpdateSequenceNumber()).isEqualTo((long) (value + 1));
        } finally {
            for (ChildJvm child : children) {
                child.close();
            }
        }
    }

    @Test
    void processesOpeningANewDatabaseAtOnce_allSucceed() throws Exception {
        EngineConfig fresh = freshDatabase();
        List<ChildJvm> children = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                children.add(ChildJvm.start(OpenWorker.class, args(TestDatabases.sameDatabaseOn(config(i), fresh), "Opened")));
            }
            startTogether(children);
            for (ChildJvm child : children) {
                child.awaitLine("OPENED"::equals, RUN);
            }
            for (ChildJvm child : children) {
                child.send("EXIT");
                assertThat(child.awaitExit(STARTUP)).isZero();
            }
            try (ContentEngine check = ContentEngine.open(fresh)) {
                assertThat(check.session("x").objectStore().getClassDefinition("Opened").getPropertyDefinitions())
                        .hasSize(1);
            }
        } finally {
            for (ChildJvm child : children) {
                child.close();
            }
        }
    }
}
