package dev.turnstile.engine;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.DispenserStrategy;
import dev.turnstile.api.dispenser.DispensersConfig;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A conflict the engine settles itself — the database aborting one of two racing transactions,
 * which the engine runs again — is counted ({@code turnstile.db.conflicts}), never logged: two
 * engines on one H2 file, taking numbers at once, left thousands of Hibernate WARN lines
 * ("HHH000247 … 40001", "Deadlock detected … TS_OBJECT") while every call succeeded.
 */
class QuietConflictsTest {
    private static final int THREADS = 8;
    private static final int EACH = 60;

    @Test
    void conflictsTheEngineSettles_areCounted_andLogNothing() throws Exception {
        EngineConfig config = TestDatabases.h2("quiet-conflicts-" + UUID.randomUUID());
        try (LogCapture all = new LogCapture(org.slf4j.Logger.ROOT_LOGGER_NAME);
             ContentEngine a = ContentEngine.open(config); ContentEngine b = ContentEngine.open(config)) {
            a.session("admin", Set.of(DispensersConfig.DEFAULT_ADMIN_ROLE)).dispensers().create("racing", DispenserConfig.ofDefaults());
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            CyclicBarrier start = new CyclicBarrier(THREADS);
            List<Future<List<Long>>> taken = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                var dispenser = (t % 2 == 0 ? a : b).session("worker" + t).dispensers().get("racing",
                        DispenserConfig.builder().strategy(t % 4 < 2 ? DispenserStrategy.PESSIMISTIC : DispenserStrategy.FIRST_WRITER_WINS).build());
                taken.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    List<Long> mine = new ArrayList<>();
                    for (int i = 0; i < EACH; i++) {
                        mine.add(dispenser.next());
                    }
                    return mine;
                }));
            }
            Set<Long> numbers = new HashSet<>();
            for (Future<List<Long>> f : taken) {
                numbers.addAll(f.get(5, TimeUnit.MINUTES));
            }
            pool.shutdown();
            assertThat(numbers).as("every call succeeded, no number twice").hasSize(THREADS * EACH);
            long conflicts = a.statistics().conflicts() + b.statistics().conflicts();
            assertThat(conflicts).as("transactions H2 aborted for a racing one and the engines ran again (statistics().conflicts(),"
                    + " the meter turnstile.db.conflicts)").isPositive();
            assertThat(all.lines().stream().filter(l -> l.startsWith("WARN ") || l.startsWith("ERROR ")).toList())
                    .as("nothing logged at WARN or ERROR for %d settled conflicts", conflicts).isEmpty();
        }
    }
}
