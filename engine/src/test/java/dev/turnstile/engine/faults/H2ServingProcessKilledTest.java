package dev.turnstile.engine.faults;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.DispenserConfig;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.ChildJvm;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The embedded default shared by processes: the one that serves the H2 file (AUTO_SERVER) is
 * killed with SIGKILL, twice, while three processes take numbers and create numbered documents.
 * The others go on by themselves — one of them serves the file next — with no call failing.
 *
 * <p>What H2 cannot give: it writes a commit to the file up to half a second after answering it,
 * so the killed server's last commits are gone: numbers their callers received are issued again,
 * the numbered documents were once seen with a gap (5147 missing), and once a register row
 * survived without its counter update. The test counts what it can and prints it (the README's
 * warning); making H2 write each commit at once (WRITE_DELAY=0, or a CHECKPOINT) cost concurrent
 * updates instead.
 */
class H2ServingProcessKilledTest {
    private static final Duration STARTUP = Duration.ofSeconds(60);
    /**
     * Not the 10 s: H2's lock-file protocol decides. A process taking over a file whose
     * server died waits for the dead server's lock file to age (about 3.5 s), and a second one
     * that raced it fails once with "Lock file recently modified" and gets in 4 to 5 s later.
     * Measured here: 3.7 to 10 s after the kill.
     */
    private static final Duration RESUME = Duration.ofSeconds(30);
    /**
     * Not numbered creations: with one creating thread per process, the creation of one survivor
     * once made no progress for a minute behind the others' row-lock waits (H2 does not queue
     * them fairly; issue 16). The restart tests cover numbered creations on PostgreSQL and MariaDB.
     */
    private static final List<String> WORKLOADS = List.of("keyed", "plain");

    @TempDir
    Path logs;

    @Test
    void servingProcessKilledTwice_othersResumeByThemselves_noCallFails() throws Exception {
        String name = "killed-" + UUID.randomUUID();
        EngineConfig config = TestDatabases.h2(name);
        Path file = Path.of("target", "h2", name).toAbsolutePath();
        String documents = "KilledInvoice";
        try (ContentEngine engine = ContentEngine.open(config)) {
            var admin = engine.session("admin", Set.of(EngineConfig.DEFAULT_DISPENSER_ADMIN_ROLE));
            for (String d : List.of("keyed", "plain", "creating")) {
                // No register: after a kill H2 was seen to keep a register row without the counter
                // update of its transaction, and every later take of that dispenser then failed on
                // the register's key — the register stopped a duplicate, and the series with it.
                admin.dispensers().create(d, DispenserConfig.builder().register(false).build());
            }
            admin.objectStore().defineClass(documents, c -> c.superclass("Document").int64("InvoiceNumber"));
        } // closed: the first worker serves the file
        List<ChildJvm> all = new ArrayList<>();
        List<ChildJvm> running = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                running.add(start(config, documents));
                running.get(i).awaitLine("READY"::equals, STARTUP); // one by one: the first serves
            }
            all.addAll(running);
            awaitProgress(running, 0);
            for (int kill = 0; kill < 2; kill++) {
                ChildJvm serving = serving(file, running);
                serving.kill();
                long killedAt = System.currentTimeMillis();
                running.remove(serving);
                awaitProgress(running, killedAt);
                long slowest = 0;
                for (ChildJvm c : running) {
                    for (String workload : WORKLOADS) {
                        long resumed = OutageWorker.firstOkSince(c.lines(), workload, killedAt) - killedAt;
                        System.out.printf(Locale.ROOT, "kill %d: %s in %d resumed %d ms after the serving process died%n",
                                kill + 1, workload, c.pid(), resumed);
                        slowest = Math.max(slowest, resumed);
                    }
                }
                assertThat(slowest).as("every workload working again after kill %d (ms)", kill + 1)
                        .isLessThanOrEqualTo(RESUME.toMillis());
                ChildJvm replacement = start(config, documents);
                replacement.awaitLine("READY"::equals, STARTUP);
                running.add(replacement);
                all.add(replacement);
            }
            awaitProgress(running, System.currentTimeMillis());
            running.forEach(c -> c.send("STOP"));
            for (ChildJvm c : running) {
                c.awaitLine("DONE"::equals, STARTUP);
            }
        } finally {
            all.forEach(ChildJvm::close);
        }

        List<String> survivors = running.stream().flatMap(c -> c.lines().stream()).toList();
        assertThat(survivors.stream().filter(l -> l.startsWith("FAIL "))).as("failures in processes not killed").isEmpty();
        List<Long> created = TestDatabases.int64Values(config, documents, "InvoiceNumber");
        long gaps = created.stream().mapToLong(Long::longValue).max().orElse(0) - new java.util.HashSet<>(created).size();
        System.out.printf(Locale.ROOT, "documents: %d committed, %d numbers twice, %d gaps%n", created.size(),
                created.size() - new java.util.HashSet<>(created).size(), gaps);
        List<String> lines = all.stream().flatMap(c -> c.lines().stream()).toList();
        for (String workload : WORKLOADS) {
            List<Long> received = OutageWorker.numbers(lines, workload);
            System.out.printf(Locale.ROOT, "%s: %d numbers received, %d of them twice (commits the killed server lost)%n",
                    workload, received.size(), received.size() - new java.util.HashSet<>(received).size());
        }
    }

    private ChildJvm start(EngineConfig config, String documents) throws Exception {
        return ChildJvm.start(OutageWorker.class, config.jdbcUrl(), config.username(), config.password(), "keyed", "plain",
                documents, "creating", "-", "-", "-", logs.toString(), String.join(",", WORKLOADS),
                // Not COMBINING: across H2 processes its optimistic leaders starve behind the serving
                // process's in-process ones (issue 16).
                "PESSIMISTIC");
    }

    /** The child that serves the file: the one with the socket listening on the lock file's port. */
    private static ChildJvm serving(Path file, List<ChildJvm> children) throws Exception {
        Properties lock = new Properties();
        try (var in = Files.newInputStream(Path.of(file + ".lock.db"))) {
            lock.load(in);
        }
        String server = lock.getProperty("server");
        int port = Integer.parseInt(server.substring(server.lastIndexOf(':') + 1));
        String inode = null;
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) { // Java's sockets are often IPv6 ones
            for (String line : Files.readAllLines(Path.of(table))) {
                String[] f = line.trim().split("\\s+");
                if (f[1].endsWith(String.format(Locale.ROOT, ":%04X", port)) && f[3].equals("0A")) {
                    inode = f[9];
                }
            }
        }
        assertThat(inode).as("a socket listens on the lock file's port %d", port).isNotNull();
        String socket = "socket:[" + inode + "]";
        for (ChildJvm c : children) {
            try (Stream<Path> fds = Files.list(Path.of("/proc", "" + c.pid(), "fd"))) {
                if (fds.anyMatch(fd -> {
                    try {
                        return Files.readSymbolicLink(fd).toString().equals(socket);
                    } catch (Exception gone) {
                        return false;
                    }
                })) {
                    return c;
                }
            }
        }
        throw new AssertionError("no worker serves port " + port);
    }

    /** Waits until every child has 5 more successes of every workload since {@code since} (epoch ms). */
    private static void awaitProgress(List<ChildJvm> children, long since) {
        for (ChildJvm c : children) {
            for (String workload : WORKLOADS) {
                c.awaitLine(l -> l.startsWith("OK " + workload + " ") && OutageWorker.oksSince(c.lines(), workload, since) >= 5,
                        STARTUP);
            }
        }
    }
}
