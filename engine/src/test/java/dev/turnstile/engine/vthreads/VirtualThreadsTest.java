package dev.turnstile.engine.vthreads;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.ChildJvm;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A host on JDK 25 with virtual threads: 2,000 of them on one engine with its default pool of 10
 * connections, each taking a number and incrementing a counter under a cooperative lock. Exact
 * results, no call failed (no pool starvation: a wait for a connection ends in its 10 s), and no
 * {@code jdk.VirtualThreadPinned} event in a JFR stream once a first crowd of 100 has run, but those
 * of class loading: the JDK pins a virtual thread that loads a class, or waits for another to
 * initialize one (its socket poller, Resilience4j's and the engine's classes were seen, once each,
 * in the first crowd) — a JDK limit, counted apart and reported, not the code's blocking. Runs in a JDK 25 child process (the suite
 * itself runs on 17); {@code TURNSTILE_JDK25} names another JDK 21+ home.
 */
@Tag("multi-process")
class VirtualThreadsTest {
    private static final Path JDK = Path.of(System.getenv().getOrDefault("TURNSTILE_JDK25", "/usr/lib/jvm/temurin-25-jdk-amd64"));
    private static final int THREADS = 2000;
    private static final int OBJECTS = 20;
    /** The JDK pins a virtual thread that loads a class another is loading: a first crowd loads them, uncounted. */
    private static final int WARM_UP = 100;

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void twoThousandVirtualThreads_takeNumbersAndLocks_exactly_withoutPinningOrStarvation(String database) throws Exception {
        assertThat(JDK.resolve("bin/java")).as("a JDK 21 or later (TURNSTILE_JDK25)").satisfies(java -> assertThat(Files.isExecutable(java)).isTrue());
        EngineConfig config = database.equals("h2") ? TestDatabases.h2("vthreads-" + UUID.randomUUID()) : TestDatabases.postgres();
        try (ChildJvm host = ChildJvm.startOn(JDK, VirtualThreadsWorker.class, config.jdbcUrl(), config.username(), config.password(),
                Integer.toString(THREADS), Integer.toString(OBJECTS), Integer.toString(WARM_UP))) {
            host.awaitLine("DONE"::equals, Duration.ofMinutes(10));
            List<String> lines = host.lines();
            assertThat(value(lines, "FAILED")).as("calls that failed (a connection not had within its timeout among them)").isEqualTo("0");
            int all = WARM_UP + THREADS;
            assertThat(value(lines, "NUMBERS")).as("min, max and distinct numbers taken").isEqualTo("1 " + all + " " + all);
            assertThat(value(lines, "COUNTERS").split(",")).as("each counter incremented under its lock by each of its threads")
                    .containsExactlyElementsOf(Collections.nCopies(OBJECTS, Integer.toString(all / OBJECTS)));
            assertThat(value(lines, "PINNED")).as("jdk.VirtualThreadPinned events but class loading's (%s of those; every stack is in"
                    + " the child's log)", value(lines, "PINNED_BY_CLASS_LOADING")).isEqualTo("0");
        }
    }

    private static String value(List<String> lines, String key) {
        return lines.stream().filter(l -> l.startsWith(key + " ")).map(l -> l.substring(key.length() + 1)).findFirst().orElseThrow();
    }
}
