package dev.turnstile.engine.dispenser;

import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.dispenser.Dispenser;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.DispenserStrategy;
import dev.turnstile.api.dispenser.DispensersConfig;
import dev.turnstile.api.dispenser.ResetPeriod;
import dev.turnstile.engine.MutableClock;
import dev.turnstile.engine.TestDatabases;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reset periods at their edges: New Year under load, two nodes that disagree about the day, a
 * taker that waits for the counter row across midnight. The period of a number is decided once,
 * in the transaction that holds the counter row, and never goes backwards.
 */
public abstract class AbstractDispenserPeriodTest {
    protected abstract EngineConfig config();

    private static String name(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static Dispenser create(ContentEngine engine, String name, DispenserConfig config) {
        return engine.session("admin", Set.of(DispensersConfig.DEFAULT_ADMIN_ROLE)).dispensers().create(name, config);
    }

    /**
     * A clock that moves on 50 µs at every reading, as a busy engine's clock does between any two
     * reads, and 4 s more at the reading {@link #stepAfter} names: New Year falls within a run by the
     * count of readings, whatever the machine's speed. (A take decided in one statement adds the
     * real time it ran, milliseconds, to the reading: a run 10 ms before midnight could cross it
     * before the first take on a loaded machine, or a COMBINING run, one reading a block, not at all.)
     */
    private static final class TickingClock extends Clock {
        private final AtomicLong micros;
        private final AtomicLong readings = new AtomicLong();
        private volatile long stepAt = Long.MAX_VALUE;

        TickingClock(Instant start) {
            micros = new AtomicLong(start.getEpochSecond() * 1_000_000L + start.getNano() / 1_000);
        }

        /** The 4 s step comes at the {@code n}-th reading from now. */
        void stepAfter(long n) {
            stepAt = readings.get() + n;
        }

        @Override
        public Instant instant() {
            long m = micros.addAndGet(readings.incrementAndGet() == stepAt ? 4_000_000 : 50);
            return Instant.ofEpochSecond(m / 1_000_000L, (m % 1_000_000L) * 1_000);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }

    /**
     * Issue 44: register() and report() covered the current period only; after New Year an auditor
     * needed SQL to see last year's series. Both take a period, a closed one included.
     */
    @Test
    void aClosedYear_isAuditedThroughTheApi_itsRegisterAndItsReport() {
        MutableClock clock = new MutableClock(Instant.parse("2026-12-31T23:00:00Z"));
        try (ContentEngine engine = ContentEngine.open(EngineConfig.from(config()).clock(clock).build())) {
            String name = name("audit");
            Dispenser d = create(engine, name, DispenserConfig.builder().format("INV-{yyyy}-{seq:4}").reset(ResetPeriod.YEARLY)
                    .register(true).build());
            assertThat(LongStream.rangeClosed(1, 3).map(i -> d.next()).toArray()).containsExactly(1, 2, 3);
            d.voidNumber(2, "keyed twice");
            clock.set(Instant.parse("2027-01-01T00:00:01Z"));
            assertThat(d.next()).isEqualTo(1);

            assertThat(d.periods()).containsExactly("2026", "2027");
            dev.turnstile.api.dispenser.RegisterReport closed = d.report("2026", 1, 10);
            assertThat(closed.period()).isEqualTo("2026");
            assertThat(List.of(closed.first(), closed.last(), closed.issued(), closed.voided(), closed.missingCount()))
                    .containsExactly(1L, 3L, 2L, 1L, 0L);
            assertThat(closed.isComplete()).isTrue();
            assertThat(d.register("2026", 1, 10)).extracting(dev.turnstile.api.dispenser.IssuedNumber::number).containsExactly(1L, 2L, 3L);
            assertThat(d.register("2026", 1, 10).get(1).voidReason()).isEqualTo("keyed twice");
            assertThat(d.report("2027", 1, 10)).isEqualTo(d.report(1, 10));
            assertThat(d.register("2027", 1, 10)).isEqualTo(d.register(1, 10));

            org.assertj.core.api.Assertions.assertThatThrownBy(() -> d.report("2028", 1, 10)).hasMessage("E_BAD_VALUE: Bad value for period"
                    + " of dispenser " + name + ": \"2028\" (has not begun; the current period is 2027)");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> d.register("27", 1, 10)).hasMessage("E_BAD_VALUE: Bad value for period"
                    + " of dispenser " + name + ": \"27\" (a yearly series' period is a year such as 2026)");
        }
    }

    @ParameterizedTest
    @EnumSource(DispenserStrategy.class)
    void newYearUnderLoad_everyFormattedNumberIsUnique_andEachYearStartsAtOne(DispenserStrategy strategy) throws Exception {
        // 2 s before New Year, past it at the 40th reading (480 numbers in blocks of at most 8: 60 readings or more).
        TickingClock clock = new TickingClock(Instant.parse("2026-12-31T23:59:58Z"));
        try (ContentEngine engine = ContentEngine.open(EngineConfig.from(config()).clock(clock).build())) {
            String name = name("ny");
            create(engine, name, DispenserConfig.builder().format("INV-{yyyy}-{seq:6}").reset(ResetPeriod.YEARLY).build());
            int threads = 8;
            int each = 60;
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            CyclicBarrier start = new CyclicBarrier(threads, () -> clock.stepAfter(40));
            List<String> all = new ArrayList<>();
            try {
                List<Future<List<String>>> futures = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    Dispenser d = engine.session("clerk" + t).dispensers().get(name, DispenserConfig.builder().strategy(strategy).build());
                    futures.add(pool.submit(() -> {
                        start.await(30, TimeUnit.SECONDS);
                        List<String> mine = new ArrayList<>();
                        for (int i = 0; i < each; i++) {
                            mine.add(d.nextFormatted());
                        }
                        return mine;
                    }));
                }
                for (Future<List<String>> f : futures) {
                    all.addAll(f.get(5, TimeUnit.MINUTES));
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(all).as("no formatted number twice").doesNotHaveDuplicates().hasSize(threads * each);
            Map<String, List<Long>> byYear = new TreeMap<>();
            for (String n : all) {
                byYear.computeIfAbsent(n.substring(4, 8), y -> new ArrayList<>()).add(Long.parseLong(n.substring(9)));
            }
            assertThat(byYear.keySet()).as("the run crossed New Year").containsExactly("2026", "2027");
            byYear.forEach((year, numbers) -> assertThat(numbers.stream().sorted().toList()).as("%s has no gap", year)
                    .isEqualTo(LongStream.rangeClosed(1, numbers.size()).boxed().toList()));
        }
    }

    @ParameterizedTest
    @EnumSource(DispenserStrategy.class)
    void twoNodesOnDifferentDays_neverReissueADailySeries(DispenserStrategy strategy) {
        MutableClock behind = new MutableClock(Instant.parse("2027-01-09T23:59:55Z"));
        MutableClock ahead = new MutableClock(Instant.parse("2027-01-10T00:00:05Z"));
        try (ContentEngine slow = ContentEngine.open(EngineConfig.from(config()).clock(behind).build());
             ContentEngine fast = ContentEngine.open(EngineConfig.from(config()).clock(ahead).build())) {
            String name = name("daily");
            DispenserConfig series = DispenserConfig.builder().format("{yyyy}{MM}{dd}-{seq}").reset(ResetPeriod.DAILY).build();
            create(slow, name, series);
            DispenserConfig mode = DispenserConfig.builder().strategy(strategy).build();
            Dispenser onSlow = slow.session("slow").dispensers().get(name, mode);
            Dispenser onFast = fast.session("fast").dispensers().get(name, mode);
            List<String> issued = new ArrayList<>();
            issued.add(onSlow.nextFormatted());
            for (int i = 0; i < 5; i++) {
                issued.add(onFast.nextFormatted());
                issued.add(onSlow.nextFormatted());
            }
            assertThat(issued).doesNotHaveDuplicates().containsExactly("20270109-1",
                    "20270110-1", "20270110-2", "20270110-3", "20270110-4", "20270110-5",
                    "20270110-6", "20270110-7", "20270110-8", "20270110-9", "20270110-10");
            assertThat(onSlow.current()).as("the slow node sees the day the series is in").isEqualTo(10);
        }
    }

    @Test
    void takerWaitingForTheCounterRowAcrossMidnight_numbersInTheNewDay() throws Exception {
        MutableClock clock = new MutableClock(Instant.parse("2027-02-01T23:59:59Z"));
        try (ContentEngine engine = ContentEngine.open(EngineConfig.from(config()).clock(clock).build())) {
            String name = name("midnight");
            create(engine, name, DispenserConfig.builder().format("{yyyy}{MM}{dd}-{seq}").reset(ResetPeriod.DAILY).build());
            Dispenser d = engine.session("clerk").dispensers().get(name, DispenserConfig.builder().strategy(DispenserStrategy.PESSIMISTIC).build());
            assertThat(List.of(d.nextFormatted(), d.nextFormatted())).containsExactly("20270201-1", "20270201-2");

            UUID id = DispenserServices.idOf(name);
            ExecutorService taker = Executors.newSingleThreadExecutor();
            try (Connection other = DriverManager.getConnection(config().jdbcUrl(), config().username(), config().password());
                 Connection watch = DriverManager.getConnection(config().jdbcUrl(), config().username(), config().password())) {
                other.setAutoCommit(false);
                String values;
                try (PreparedStatement lock = other.prepareStatement("SELECT prop_values FROM ts_object WHERE id = ? FOR UPDATE")) {
                    lock.setObject(1, id);
                    try (ResultSet rs = lock.executeQuery()) {
                        rs.next();
                        values = rs.getString(1);
                    }
                }
                int waitingBefore = TestDatabases.lockWaiters(watch);
                // A microsecond before midnight when it asks: a take decided in the statement counts the wait.
                clock.set(Instant.parse("2027-02-01T23:59:59.999999Z"));
                Future<String> waiting = taker.submit(d::nextFormatted);
                Awaitility.await("the taker waits for the counter row").atMost(Duration.ofSeconds(30))
                        .until(() -> TestDatabases.lockWaiters(watch) > waitingBefore);

                // Midnight passes while it waits; another node takes the new day's first number.
                clock.set(Instant.parse("2027-02-02T00:00:01Z"));
                ObjectNode json = (ObjectNode) new ObjectMapper().readTree(values);
                json.put("Period", "2027-02-02");
                json.put("Counter", 1L);
                try (PreparedStatement write = other.prepareStatement("UPDATE ts_object SET prop_values = ?, usn = usn + 1 WHERE id = ?")) {
                    write.setString(1, json.toString());
                    write.setObject(2, id);
                    assertThat(write.executeUpdate()).isEqualTo(1);
                }
                other.commit();
                assertThat(waiting.get(30, TimeUnit.SECONDS)).isEqualTo("20270202-2");
            } finally {
                taker.shutdownNow();
            }
        }
    }
}
