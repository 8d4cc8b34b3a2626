package dev.turnstile.engine.faults;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.changes.ChangeFilter;
import dev.turnstile.api.changes.ChangeKind;
import dev.turnstile.api.changes.ChangesConfig;
import dev.turnstile.api.changes.DeliveryMode;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.DispensersConfig;
import dev.turnstile.api.treelock.TreePath;
import dev.turnstile.engine.ChildJvm;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Tag;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The database restarted for real under three processes that take numbers (with and without
 * request keys), create numbered documents, take a cooperative lock and tree locks, and dispatch and
 * read the change feed, all at once. Nothing fails that reached a caller, nothing is issued twice,
 * no committed change is missing from any feed client, every process works again soon after the
 * database is back. Runs as an integration test, after every other engine test, since
 * it cuts every session of the shared server.
 */
@Tag("faults")
abstract class AbstractDatabaseRestartTest {
    private static final Duration STARTUP = Duration.ofSeconds(60);
    /** What the issue asks: every process working again within 10 s of the database. */
    private static final Duration RESUME = Duration.ofSeconds(10);
    private static final List<String> WORKLOADS = List.of("keyed", "plain", "create", "lock", "tree", "feed");
    private static final int PROCESSES = 3;
    private static final String FEED_CLIENT_PREFIX = "rf-";
    private final List<String> feedClients = new ArrayList<>();

    @TempDir
    Path logs;

    protected abstract EngineConfig config();

    /** Stops and starts the server; returns once it accepts connections again. */
    protected abstract void restartDatabase() throws Exception;

    /** The database child process {@code process} works on: the one server, or on a cluster a node of its own. */
    protected EngineConfig config(int process) {
        return config();
    }

    /** Runs once the children have stopped, before the checks: on a cluster, the node taken out rejoins. */
    protected void afterTheRun() throws Exception {
    }

    @Test
    void restartUnderLoad_noCallFails_noNumberTwice_noGapWithKeys_everyProcessBackWithinTenSeconds() throws Exception {
        String tag = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        String keyed = "rk-" + tag;
        String plain = "rp-" + tag;
        String creating = "rc-" + tag;
        String documents = "RestartInvoice" + tag;
        String lockClass = "RestartLock" + tag;
        UUID lockId;
        try (ContentEngine engine = ContentEngine.open(EngineConfig.from(config()).changes(ChangesConfig.of(true)).build())) {
            var admin = engine.session("admin", Set.of(DispensersConfig.DEFAULT_ADMIN_ROLE));
            for (String name : List.of(keyed, plain, creating)) {
                admin.dispensers().create(name, DispenserConfig.builder().register(true).build());
            }
            ObjectStore os = admin.objectStore();
            os.defineClass(documents, c -> c.superclass("Document").int64("InvoiceNumber"));
            os.defineClass(lockClass, c -> c.integer32("Counter"));
            CustomObject o = os.createCustomObject(lockClass);
            o.save(RefreshMode.REFRESH);
            lockId = o.getId();
            // The database is shared with every other test: a client left behind is served by their
            // dispatchers. Those of an earlier run that did not get to its clean-up go first.
            engine.changes().clients().stream().filter(n -> n.startsWith(FEED_CLIENT_PREFIX)).forEach(engine.changes()::unregisterClient);
            for (int i = 0; i < PROCESSES; i++) {
                engine.changes().registerClient(feedClient(tag, i), ChangeFilter.classes(documents).withKinds(ChangeKind.CREATE),
                        DeliveryMode.QUEUE);
                feedClients.add(feedClient(tag, i));
            }
        }
        List<ChildJvm> children = new ArrayList<>();
        long backAt;
        long restartAt = 0;
        try {
            for (int i = 0; i < PROCESSES; i++) {
                EngineConfig node = config(i);
                children.add(ChildJvm.start(OutageWorker.class, node.jdbcUrl(), node.username(), node.password(),
                        keyed, plain, documents, creating, lockClass, lockId.toString(), tag, logs.toString(),
                        String.join(",", WORKLOADS),
                        // The default strategy: its leaders starved for a minute here across
                        // processes before they queued after a lost race (issue 16).
                        "COMBINING", feedClient(tag, i)));
            }
            for (ChildJvm c : children) {
                c.awaitLine("READY"::equals, STARTUP);
            }
            OutageWorker.awaitProgress(children, WORKLOADS, 0, 5);
            restartAt = System.currentTimeMillis();
            restartDatabase();
            backAt = System.currentTimeMillis();
            OutageWorker.awaitProgress(children, WORKLOADS, backAt, 5);
        } finally {
            children.forEach(c -> c.send("STOP"));
        }
        // A process that drained its feed client while another still created documents would miss those.
        OutageWorker.drainAfterStop(children, STARTUP);
        children.forEach(ChildJvm::close);
        afterTheRun();

        List<String> lines = children.stream().flatMap(c -> c.lines().stream()).toList();
        assertThat(lines.stream().filter(l -> l.startsWith("FAIL "))).as("failures that reached a caller").isEmpty();
        for (ChildJvm c : children) {
            for (String workload : WORKLOADS) {
                long resumedAt = OutageWorker.firstOkSince(c.lines(), workload, backAt);
                System.out.printf("%s: %s resumed %d ms after the database was back%n", getClass().getSimpleName(), workload,
                        resumedAt - backAt);
                assertThat(resumedAt - backAt).as("%s working again after the restart (ms)", workload)
                        .isLessThanOrEqualTo(RESUME.toMillis());
            }
        }

        List<Long> keyedNumbers = OutageWorker.numbers(lines, "keyed");
        assertThat(keyedNumbers).as("keyed numbers: exactly 1..N, a retry after a lost answer gets its first number")
                .containsExactlyInAnyOrderElementsOf(LongStream.rangeClosed(1, keyedNumbers.size()).boxed().toList());

        List<Long> plainNumbers = OutageWorker.numbers(lines, "plain");
        var plainTwice = OutageWorker.reportedTwice(children, "plain");
        assertThat(plainTwice).as("numbers without keys: none twice (the number, and each process that reported it, with"
                + " the time; the restart began at %d and was over at %d; the register's rows around them, with the"
                + " pid and the database's time of each take that committed: %s)", restartAt, backAt,
                registerRows(plain, plainTwice.keySet())).isEmpty();
        long plainIssued = plainNumbers.stream().mapToLong(Long::longValue).max().orElseThrow();
        assertThat(plainIssued - plainNumbers.size()).as("numbers whose commit's answer the restart cut (one per"
                + " thread at most) are the only gaps").isBetween(0L, (long) PROCESSES * 2);

        List<Long> created = TestDatabases.int64Values(config(), documents, "InvoiceNumber");
        assertThat(created).as("committed documents carry exactly 1..N")
                .containsExactlyInAnyOrderElementsOf(LongStream.rangeClosed(1, created.size()).boxed().toList());
        assertThat(created).as("every reported creation is committed").containsAll(OutageWorker.numbers(lines, "create"));

        for (int i = 0; i < PROCESSES; i++) {
            Set<Long> received = Files.readAllLines(logs.resolve(feedClient(tag, i) + ".log")).stream().map(Long::valueOf)
                    .collect(java.util.stream.Collectors.toSet());
            assertThat(received).as("creations feed client %s received (at least once), against those committed", feedClient(tag, i))
                    .containsExactlyInAnyOrderElementsOf(created);
        }

        List<String> lockLog = Files.readAllLines(logs.resolve("lock.log"));
        for (int i = 0; i < lockLog.size(); i += 2) {
            String holder = lockLog.get(i).substring("START ".length());
            assertThat(lockLog.get(i + 1)).as("line %d: nobody else inside the lock of %s", i + 1, holder).isEqualTo("END " + holder);
        }

        List<String[]> tree = Files.readAllLines(logs.resolve("tree.log")).stream().map(l -> l.split(" ")).toList();
        for (int i = 0; i < tree.size(); i++) {
            for (int j = i + 1; j < tree.size(); j++) {
                String[] a = tree.get(i);
                String[] b = tree.get(j);
                TreePath pa = TreePath.parse(a[3]);
                TreePath pb = TreePath.parse(b[3]);
                boolean related = pa.equals(pb) || pa.isAncestorOf(pb) || pb.isAncestorOf(pa);
                boolean overlap = a[2].equals(b[2]) ? false
                        : Long.parseLong(a[0]) < Long.parseLong(b[1]) && Long.parseLong(b[0]) < Long.parseLong(a[1]);
                assertThat(related && overlap).as("%s (pid %s) and %s (pid %s) held at once", pa, a[2], pb, b[2]).isFalse();
            }
        }
    }

    /**
     * The register's rows of dispenser {@code name} from a few before the least of {@code numbers} to a
     * few after the greatest: who each was issued to, and when (diagnosis of a number reported twice).
     */
    private String registerRows(String name, Set<Long> numbers) throws Exception {
        if (numbers.isEmpty()) {
            return "none";
        }
        EngineConfig db = config();
        List<String> rows = new ArrayList<>();
        try (var c = java.sql.DriverManager.getConnection(db.jdbcUrl(), db.username(), db.password());
             var s = c.prepareStatement("SELECT number, issued_by, issued_at FROM ts_dispenser_issue WHERE dispenser = ?"
                     + " AND number BETWEEN ? AND ? ORDER BY number")) {
            s.setString(1, name);
            s.setLong(2, java.util.Collections.min(numbers) - 8);
            s.setLong(3, java.util.Collections.max(numbers) + 8);
            try (var rs = s.executeQuery()) {
                while (rs.next()) {
                    rows.add(rs.getLong(1) + " " + rs.getString(2) + " at " + rs.getString(3));
                }
            }
        }
        return rows.toString();
    }

    private static String feedClient(String tag, int process) {
        return FEED_CLIENT_PREFIX + tag + "-" + process;
    }

    @AfterEach
    void unregisterFeedClients() {
        try (ContentEngine engine = ContentEngine.open(config())) {
            feedClients.forEach(engine.changes()::unregisterClient);
        }
    }
}
