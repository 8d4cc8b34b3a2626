package dev.turnstile.engine.faults;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.DispensersConfig;
import dev.turnstile.engine.ChildJvm;
import dev.turnstile.engine.LogCapture;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Tag;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What asynchronous replication loses, shown rather than hoped away: three processes take numbers
 * (with and without request keys) on a PostgreSQL primary whose standby replicates asynchronously;
 * the standby is caught up, then stops receiving (the primary's WAL sender paused) while numbers
 * are still answered, then the primary is SIGKILLed and the standby promoted. Every number
 * answered since the standby last caught up can be issued again, and some are: the README says so
 * and tells which settings prevent it ({@link PostgresSyncFailoverIT}). Numbers answered before
 * that point are never issued again.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("faults")
class PostgresAsyncFailoverIT {
    private static final List<String> WORKLOADS = List.of("keyed", "plain");
    private static final int PROCESSES = 3;

    @TempDir
    Path logs;

    @BeforeAll
    static void startPrimaryAndAsynchronousStandby() throws Exception {
        DatabaseServers.pgFailover("start", "async");
    }

    @AfterAll
    static void stopThem() throws Exception {
        DatabaseServers.pgFailover("stop");
    }

    @Test
    @Order(1)
    void openingOnThePrimary_warnsWhatAFailoverCanCost() throws Exception {
        EngineConfig config = TestDatabases.postgresFailover();
        assertThat(DatabaseServers.replicationStates(TestDatabases.postgresFailoverFirstPrimary())).containsExactly("streaming async");
        try (LogCapture log = new LogCapture("dev.turnstile.engine.db.Replication");
             ContentEngine ignored = ContentEngine.open(config)) {
            assertThat(log.lines()).containsExactly("WARN " + config.jdbcUrl() + " streams to 1 standby asynchronously"
                    + " (synchronous_standby_names = '', synchronous_commit = on): after a failover the promoted standby can"
                    + " lack numbers, saves and locks already answered, and give them out again. To fail over without that,"
                    + " name the standbys in synchronous_standby_names and keep synchronous_commit on.");
        }
    }

    @Test
    @Order(2) // fails the primary over
    void primaryLostWhileTheStandbyLags_numbersAnsweredSinceItCaughtUpAreIssuedAgain_earlierOnesNever() throws Exception {
        EngineConfig config = TestDatabases.postgresFailover();
        String tag = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        String keyed = "ak-" + tag;
        String plain = "ap-" + tag;
        try (ContentEngine engine = ContentEngine.open(config)) {
            var admin = engine.session("admin", Set.of(DispensersConfig.DEFAULT_ADMIN_ROLE));
            for (String name : List.of(keyed, plain)) {
                admin.dispensers().create(name, DispenserConfig.builder().register(true).build());
            }
        }
        List<ChildJvm> children = new ArrayList<>();
        long caughtUpAt;
        try {
            for (int i = 0; i < PROCESSES; i++) {
                children.add(ChildJvm.start(OutageWorker.class, config.jdbcUrl(), config.username(), config.password(),
                        keyed, plain, "-", "-", "-", "-", tag, logs.toString(), String.join(",", WORKLOADS), "PESSIMISTIC"));
            }
            for (ChildJvm c : children) {
                c.awaitLine("READY"::equals, Duration.ofSeconds(60));
            }
            OutageWorker.awaitProgress(children, WORKLOADS, 0, 5);
            caughtUpAt = System.currentTimeMillis();
            DatabaseServers.awaitStandbyCaughtUp(TestDatabases.postgresFailoverFirstPrimary());
            DatabaseServers.pgFailover("pause");
            long pausedAt = System.currentTimeMillis();
            OutageWorker.awaitProgress(children, WORKLOADS, pausedAt, 5);
            DatabaseServers.pgFailover("fail");
            OutageWorker.awaitProgress(children, WORKLOADS, System.currentTimeMillis(), 10);
        } finally {
            children.forEach(c -> c.send("STOP"));
        }
        OutageWorker.drainAfterStop(children, Duration.ofSeconds(60));
        children.forEach(ChildJvm::close);
        List<String> lines = children.stream().flatMap(c -> c.lines().stream()).toList();
        assertThat(lines.stream().filter(l -> l.startsWith("FAIL "))).as("failures that reached a caller").isEmpty();
        for (String workload : WORKLOADS) {
            Map<Long, Long> firstAnswered = new HashMap<>();
            Map<Long, Integer> times = new HashMap<>();
            for (String line : lines) {
                String[] f = line.split(" ");
                if (line.startsWith("OK " + workload + " ")) {
                    long number = Long.parseLong(f[3]);
                    firstAnswered.merge(number, Long.parseLong(f[2]), Math::min);
                    times.merge(number, 1, Integer::sum);
                }
            }
            List<Long> twice = times.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).sorted().toList();
            long sinceCaughtUp = firstAnswered.values().stream().filter(t -> t >= caughtUpAt).count();
            System.out.printf("%s: %s numbers answered since the standby caught up: %d; issued twice after the failover: %d%n",
                    getClass().getSimpleName(), workload, sinceCaughtUp, twice.size());
            assertThat(twice).as("%s numbers issued again by the promoted standby", workload).isNotEmpty();
            for (long number : twice) {
                assertThat(firstAnswered.get(number)).as("%s number %d, issued twice, was first answered after the standby caught up",
                        workload, number).isGreaterThanOrEqualTo(caughtUpAt);
            }
        }
    }
}
