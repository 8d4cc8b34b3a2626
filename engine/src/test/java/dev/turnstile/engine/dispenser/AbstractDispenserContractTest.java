package dev.turnstile.engine.dispenser;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.Document;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.EngineStatistics;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.dispenser.Dispenser;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.DispenserStrategy;
import dev.turnstile.api.dispenser.Dispensers;
import dev.turnstile.api.dispenser.DispensersConfig;
import dev.turnstile.api.dispenser.IssuedNumber;
import dev.turnstile.api.dispenser.NumberBlock;
import dev.turnstile.api.dispenser.NumberRange;
import dev.turnstile.api.dispenser.RegisterReport;
import dev.turnstile.api.dispenser.ResetPeriod;
import dev.turnstile.api.retry.RetryPoliciesConfig;
import dev.turnstile.api.retry.RetryPolicyConfig;
import dev.turnstile.engine.MutableClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
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
import java.util.stream.LongStream;

import static dev.turnstile.engine.Failures.failure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/** Dispensers on every database: each strategy under real contention, round trips, series rules, the register. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractDispenserContractTest {
    static final int THREADS = 16;
    static final int PER_THREAD = 125;

    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-31T23:00:00Z"));
    private ContentEngine engine;
    private Dispensers admin;
    private Dispensers clerk;

    protected abstract EngineConfig config();

    @BeforeAll
    void open() {
        engine = ContentEngine.open(EngineConfig.from(config()).clock(clock).build());
        admin = engine.session("carol", Set.of(DispensersConfig.DEFAULT_ADMIN_ROLE)).dispensers();
        clerk = engine.session("dave").dispensers();
    }

    @AfterAll
    void close() {
        engine.close();
    }

    private static String name(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Rows {@code sql} (with the dispenser's name as its one parameter) changed, committed on a connection of its own. */
    private int behindTheEngine(String sql, Dispenser d) throws SQLException {
        try (Connection c = DriverManager.getConnection(config().jdbcUrl(), config().username(), config().password());
             PreparedStatement statement = c.prepareStatement(sql)) {
            statement.setString(1, d.name());
            int rows = statement.executeUpdate();
            if (!c.getAutoCommit()) {
                c.commit();
            }
            return rows;
        }
    }

    private Dispenser create(DispenserConfig config) {
        return admin.create(name("d"), config);
    }

    @ParameterizedTest
    @EnumSource(DispenserStrategy.class)
    void sixteenThreads_getExactlyStartToStartPlus1999(DispenserStrategy strategy) throws Exception {
        String name = name(strategy.name());
        admin.create(name, DispenserConfig.builder().start(100).build());
        List<Long> all = race(name, DispenserConfig.builder().strategy(strategy).build());
        assertThat(all).hasSize(THREADS * PER_THREAD);
        assertThat(new HashSet<>(all)).as("no duplicate").hasSize(THREADS * PER_THREAD);
        assertThat(all.stream().mapToLong(Long::longValue).min().orElseThrow()).isEqualTo(100);
        assertThat(all.stream().mapToLong(Long::longValue).max().orElseThrow()).as("no gap").isEqualTo(100 + THREADS * PER_THREAD - 1);
        assertThat(clerk.get(name).current()).isEqualTo(100 + THREADS * PER_THREAD - 1);
    }

    /** Callers choose their strategy: one dispenser taken through all of them at once must stay exact. */
    @Test
    void sixteenThreads_everyStrategyAtOnce_getExactlyOneTo2000() throws Exception {
        String name = name("mixed");
        admin.create(name, DispenserConfig.ofDefaults());
        DispenserStrategy[] strategies = DispenserStrategy.values();
        int each = 125;
        List<Long> all = race(name, t -> DispenserConfig.builder().strategy(strategies[t % strategies.length])
                .feelingUnlucky(t % 7 == 0).build(), each);
        assertThat(all).hasSize(THREADS * each);
        assertThat(new HashSet<>(all)).as("no duplicate").hasSize(THREADS * each);
        assertThat(all.stream().mapToLong(Long::longValue).max().orElseThrow()).as("no gap").isEqualTo(THREADS * each);
    }

    /**
     * Nobody loses for ever: a first-writer-wins call that lost {@link FirstWriterWins#LOST_RACES}
     * races queues on the row lock, and a combining leader after {@link OptimisticBlocks#LOST_RACES}. So
     * with a policy of just that many attempts and one more (waits of a millisecond), no call of 16
     * threads in two engines racing for one counter is exhausted, and the numbers stay exact.
     */
    @ParameterizedTest
    @EnumSource(value = DispenserStrategy.class, names = {"FIRST_WRITER_WINS", "COMBINING"})
    void racingCallersOfTwoEngines_needNoMoreThanTheirLostRacesAndOneQueuedTake(DispenserStrategy strategy) throws Exception {
        int lostRaces = strategy == DispenserStrategy.COMBINING ? OptimisticBlocks.LOST_RACES : FirstWriterWins.LOST_RACES;
        RetryPolicyConfig tight = RetryPolicyConfig.builder().maxAttempts(lostRaces + 1).waitDuration(Duration.ofMillis(1))
                .build();
        try (ContentEngine a = ContentEngine.open(EngineConfig.from(config()).clock(clock).retry(RetryPoliciesConfig.builder().policy("tight", tight).build()).build());
             ContentEngine b = ContentEngine.open(EngineConfig.from(config()).clock(clock).retry(RetryPoliciesConfig.builder().policy("tight", tight).build()).build())) {
            String name = name("fair");
            admin.create(name, DispenserConfig.ofDefaults());
            int each = 150;
            List<Long> all = race(t -> (t % 2 == 0 ? a : b).session("worker" + t).dispensers().get(name,
                    DispenserConfig.builder().strategy(strategy).feelingUnlucky(t % 4 == 1).retryPolicy("tight").build()), each);
            assertThat(all).hasSize(THREADS * each);
            assertThat(new HashSet<>(all)).as("no duplicate").hasSize(THREADS * each);
            assertThat(all.stream().mapToLong(Long::longValue).max().orElseThrow()).as("no gap").isEqualTo(THREADS * each);
        }
    }

    private List<Long> race(String name, DispenserConfig config) throws Exception {
        return race(name, t -> config, PER_THREAD);
    }

    private List<Long> race(String name, java.util.function.IntFunction<DispenserConfig> configOfThread, int perThread)
            throws Exception {
        return race(t -> engine.session("worker" + t).dispensers().get(name, configOfThread.apply(t)), perThread);
    }

    /** Every thread takes {@code perThread} numbers from its own dispenser handle, all starting at once. */
    private List<Long> race(java.util.function.IntFunction<Dispenser> dispenserOfThread, int perThread) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        CyclicBarrier start = new CyclicBarrier(THREADS);
        try {
            List<Future<List<Long>>> futures = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                Dispenser d = dispenserOfThread.apply(t);
                futures.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    List<Long> mine = new ArrayList<>(perThread);
                    long previous = Long.MIN_VALUE;
                    for (int i = 0; i < perThread; i++) {
                        long n = d.next();
                        assertThat(n).as("increasing for one caller").isGreaterThan(previous);
                        previous = n;
                        mine.add(n);
                    }
                    return mine;
                }));
            }
            List<Long> all = new ArrayList<>();
            for (Future<List<Long>> f : futures) {
                all.addAll(f.get(10, TimeUnit.MINUTES));
            }
            return all;
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void roundTripsPerNumber_asTheArticleStates() {
        assertThat(roundTrips(DispenserConfig.builder().strategy(DispenserStrategy.FIRST_WRITER_WINS).build()))
                .as("first writer wins, remembered USN: one UPDATE committing itself").isEqualTo(ONE_STATEMENT);
        assertThat(roundTrips(DispenserConfig.builder().strategy(DispenserStrategy.FIRST_WRITER_WINS).feelingUnlucky(true).build()))
                .as("feelingUnlucky: fetch, then the update committing itself").isEqualTo(new EngineStatistics(1, 2, 1, 0, 1, 0));
        DispenserConfig cooperative = DispenserConfig.builder().strategy(DispenserStrategy.COOPERATIVE_LOCK).build();
        if (locksInOneStatement()) {
            assertThat(roundTrips(cooperative)).as("cooperative lock: the lock and the update with the unlock, each"
                    + " one statement committing itself").isEqualTo(new EngineStatistics(0, 2, 0, 0, 2, 0));
        } else {
            assertThat(roundTrips(cooperative)).as("cooperative lock: lock + fetch in a transaction, the update with"
                    + " the unlock committing itself").isEqualTo(new EngineStatistics(1, 3, 1, 0, 2, 0));
        }
        // A registered series records its numbers in the take's transaction; its lock still commits by itself.
        assertThat(roundTrips(DispenserConfig.from(cooperative).register(true).build()))
                .as("cooperative lock, registered: the update with the unlock and the register's row in a transaction")
                .isEqualTo(locksInOneStatement() ? new EngineStatistics(1, 3, 0, 1, 2, 0) : new EngineStatistics(2, 4, 1, 1, 2, 0));
        if (takesInOneStatement()) {
            assertThat(roundTrips(DispenserConfig.builder().strategy(DispenserStrategy.PESSIMISTIC).build()))
                    .as("pessimistic: one UPDATE under the row lock, committing itself").isEqualTo(ONE_STATEMENT);
            assertThat(roundTrips(DispenserConfig.builder().strategy(DispenserStrategy.COMBINING).build()))
                    .as("combining, alone: the same statement").isEqualTo(ONE_STATEMENT);
        } else {
            assertThat(roundTrips(DispenserConfig.builder().strategy(DispenserStrategy.PESSIMISTIC).build()))
                    .as("pessimistic: select for update + update, one transaction").isEqualTo(new EngineStatistics(1, 2, 1, 0, 1, 0));
            assertThat(roundTrips(DispenserConfig.builder().strategy(DispenserStrategy.COMBINING).build()))
                    .as("combining, alone: its remembered USN's UPDATE, committing itself").isEqualTo(ONE_STATEMENT);
        }
    }

    /** A take as one statement that commits itself: no transaction of the engine's, one UPDATE. */
    static final EngineStatistics ONE_STATEMENT = new EngineStatistics(0, 1, 0, 0, 1, 0);

    /**
     * Issue 42: every open after the first tried to insert each configured series again and let the
     * database refuse it — a WARN "duplicate key value violates unique constraint" (and an ERROR in
     * PostgreSQL's log) per series. The second open finds the series and writes nothing.
     */
    @Test
    void openingAgainWithConfiguredSeries_writesNothing_andLogsNothingAtWarn() {
        String name = name("configured");
        DispenserConfig series = DispenserConfig.builder().format("C-{seq:4}").build();
        EngineConfig configured = EngineConfig.from(config()).clock(clock).dispensers(DispensersConfig.builder().series(name, series).build()).build();
        try (ContentEngine first = ContentEngine.open(configured)) {
            assertThat(first.session("c").dispensers().get(name).next()).isEqualTo(1);
        }
        try (dev.turnstile.engine.LogCapture hibernate = new dev.turnstile.engine.LogCapture("org.hibernate");
             dev.turnstile.engine.LogCapture turnstile = new dev.turnstile.engine.LogCapture("dev.turnstile");
             ContentEngine again = ContentEngine.open(configured)) {
            assertThat(again.session("c").dispensers().get(name).next()).isEqualTo(2);
            assertThat(hibernate.lines()).filteredOn(l -> l.startsWith("WARN") || l.startsWith("ERROR")).isEmpty();
            assertThat(turnstile.lines()).filteredOn(l -> l.startsWith("WARN") || l.startsWith("ERROR")).isEmpty();
        }
    }

    /**
     * Issue 44: a dispenser created PESSIMISTIC was taken as COMBINING by a process that called
     * {@code get(name)}, and nothing said so. The strategy is stored with it; asking for another is
     * still this process's choice.
     */
    @Test
    void aProcessThatNamesNoStrategy_takesByTheOneTheDispenserWasCreatedWith() {
        String name = create(DispenserConfig.builder().strategy(DispenserStrategy.PESSIMISTIC).build()).name();
        try (ContentEngine elsewhere = ContentEngine.open(EngineConfig.from(config()).clock(clock).build())) {
            Dispenser there = elsewhere.session("c").dispensers().get(name);
            assertThat(there.config().strategy()).isEqualTo(DispenserStrategy.PESSIMISTIC);
            assertThat(there.next()).isEqualTo(1);
            DispenserConfig combining = DispenserConfig.builder().strategy(DispenserStrategy.COMBINING).build();
            Dispenser asked = elsewhere.session("c").dispensers().get(name, combining);
            assertThat(asked.config().strategy()).isEqualTo(DispenserStrategy.COMBINING);
            assertThat(asked.next()).isEqualTo(2);
        }
    }

    /** Whether PESSIMISTIC and COMBINING take a block in one statement here (PostgreSQL: {@code PostgresDispenserStatements}). */
    protected boolean takesInOneStatement() {
        return false;
    }

    /** Whether a lock request that carries nothing else is one statement here (PostgreSQL, H2: {@code ObjectStatements}). */
    protected boolean locksInOneStatement() {
        return false;
    }

    @Test
    void combining_afterAnotherEngineTook_waitsOnTheRowLock_inOneStatementWhereTheDatabaseAllows() {
        String name = create(DispenserConfig.ofDefaults()).name();
        DispenserConfig combining = DispenserConfig.builder().strategy(DispenserStrategy.COMBINING).build();
        Dispenser mine = clerk.get(name, combining);
        try (ContentEngine elsewhere = ContentEngine.open(EngineConfig.from(config()).clock(clock).build())) {
            Dispenser there = elsewhere.session("c").dispensers().get(name, combining);
            assertThat(mine.next()).isEqualTo(1);
            assertThat(there.next()).isEqualTo(2);
            EngineStatistics before = engine.statistics();
            assertThat(mine.next()).isEqualTo(3);
            EngineStatistics used = engine.statistics().since(before);
            if (takesInOneStatement()) {
                assertThat(used).as("no race to lose: one statement").isEqualTo(ONE_STATEMENT);
            } else {
                assertThat(used).as("a lost race (its USN was the old one) and the read that tells it, a fetch, then the"
                        + " row lock's transaction").isEqualTo(new EngineStatistics(2, 5, 3, 0, 2, 0));
            }
        }
    }

    /** The work of the third number of a fresh dispenser (the first ones fetch and warm up). */
    private EngineStatistics roundTrips(DispenserConfig config) {
        Dispenser d = clerk.get(create(config).name(), config);
        d.next();
        d.next();
        EngineStatistics before = engine.statistics();
        assertThat(d.next()).isEqualTo(3);
        return engine.statistics().since(before);
    }

    @Test
    void firstWriterWins_afterAConflictWithAnotherEngine_paysThreeRoundTrips_afterAnotherThreadHere_two() {
        String name = create(DispenserConfig.ofDefaults()).name();
        DispenserConfig fww = DispenserConfig.builder().strategy(DispenserStrategy.FIRST_WRITER_WINS).build();
        Dispenser mine = engine.session("a").dispensers().get(name, fww);
        Dispenser here = engine.session("b").dispensers().get(name, fww);
        try (ContentEngine elsewhere = ContentEngine.open(EngineConfig.from(config()).clock(clock).build())) {
            Dispenser there = elsewhere.session("c").dispensers().get(name, fww);
            assertThat(mine.next()).isEqualTo(1);
            assertThat(there.next()).isEqualTo(2);
            EngineStatistics before = engine.statistics();
            assertThat(mine.next()).isEqualTo(3);
            EngineStatistics used = engine.statistics().since(before);
            assertThat(used).as("a failed update and the read that tells it lost, a fetch, an update: each committing"
                    + " itself but the fetch").isEqualTo(new EngineStatistics(1, 4, 2, 0, 2, 0));
            assertThat(used.updates()).isEqualTo(2);

            // This process knows another of its threads took a number since: it reads first, no lost race.
            assertThat(here.next()).isEqualTo(4);
            before = engine.statistics();
            assertThat(mine.next()).isEqualTo(5);
            used = engine.statistics().since(before);
            assertThat(used).as("fetch, update").isEqualTo(new EngineStatistics(1, 2, 1, 0, 1, 0));
            assertThat(used.updates()).isEqualTo(1);
        }
    }

    @Test
    void blocksAreContiguous_andBadCountsChangeNothing() {
        Dispenser d = create(DispenserConfig.builder().maxBlock(50).strategy(DispenserStrategy.PESSIMISTIC).build());
        NumberBlock five = d.next(5);
        assertThat(five.first()).isEqualTo(1);
        assertThat(five.count()).isEqualTo(5);
        assertThat(five.period()).as("a series that never resets").isEmpty();
        assertThat(d.next()).isEqualTo(6);
        for (int bad : new int[] {0, -1, 51}) {
            EngineRuntimeException e = failure(() -> d.next(bad));
            assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_BAD_VALUE);
            assertThat(e.getMessage()).contains("count for dispenser " + d.name(), "must be from 1 to 50");
        }
        assertThat(d.current()).isEqualTo(6);
    }

    @Test
    void formattedNumbers_restartEachYear_byTheEngineClock() {
        clock.set(Instant.parse("2026-12-31T23:59:58Z"));
        Dispenser d = create(DispenserConfig.builder().format("INV-{yyyy}-{seq:6}").reset(ResetPeriod.YEARLY).build());
        assertThat(d.nextFormatted()).isEqualTo("INV-2026-000001");
        assertThat(d.nextFormatted()).isEqualTo("INV-2026-000002");
        clock.advance(Duration.ofSeconds(3));
        assertThat(d.current()).as("a new year has no number yet").isZero();
        assertThat(d.nextFormatted()).isEqualTo("INV-2027-000001");
        assertThat(d.register()).extracting(IssuedNumber::number).containsExactly(1L);
        assertThat(d.register().get(0).period()).isEqualTo("2027");
    }

    @Test
    void formatPatterns_areCheckedWhenTheDispenserIsCreated() {
        clock.set(Instant.parse("2027-03-04T10:00:00Z"));
        Dispenser monthly = create(DispenserConfig.builder().format("{yy}{MM}{dd}/{seq}").reset(ResetPeriod.MONTHLY).start(7).build());
        assertThat(monthly.nextFormatted()).isEqualTo("270304/7");
        for (String bad : new String[] {"INV-{year}-{seq}", "INV-{yyyy}", "{seq}{seq}", "INV-{seq", "{seq:99}"}) {
            EngineRuntimeException e = failure(() -> create(DispenserConfig.builder().format(bad).build()));
            assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_BAD_VALUE);
            assertThat(e.getMessage()).contains("format of dispenser", bad);
        }
    }

    @Test
    void aResettingSeries_mustShowItsPeriodInTheFormat_andBlocksFormatOnlyTheirOwnNumbers() {
        String name = name("yearly");
        EngineRuntimeException e = failure(() -> admin.create(name,
                DispenserConfig.builder().format("INV-{seq:6}").reset(ResetPeriod.YEARLY).build()));
        assertThat(e).hasMessage("E_BAD_VALUE: Bad value for format of dispenser " + name + ": \"INV-{seq:6}\" (the series"
                + " restarts yearly, so the format must contain {yyyy} or {yy} or its numbers repeat from one period to the next)");
        assertThat(failure(() -> clerk.get(name)).getExceptionCode()).as("nothing was created").isEqualTo(ExceptionCode.E_OBJECT_NOT_FOUND);
        assertThat(failure(() -> create(DispenserConfig.builder().format("{yyyy}-{seq}").reset(ResetPeriod.DAILY).build()))
                .getMessage()).contains("the format must contain the year ({yyyy} or {yy}), {MM} and {dd}");

        clock.set(Instant.parse("2027-05-06T07:00:00Z"));
        Dispenser d = create(DispenserConfig.builder().format("{yyyy}/{MM}/{seq:3}").reset(ResetPeriod.MONTHLY).build());
        NumberBlock block = d.next(3);
        assertThat(block.period()).isEqualTo("2027-05");
        clock.set(Instant.parse("2027-06-01T00:00:00Z"));
        assertThat(d.format(block, block.last())).as("the block's day, not today's").isEqualTo("2027/05/003");
        assertThat(failure(() -> d.format(block, 4)).getMessage()).contains("not in the block 1..3");
    }

    @Test
    void register_recordsEveryNumber_voidsKeepTheSeriesComplete() {
        Dispenser d = create(DispenserConfig.builder().format("C-{seq}").strategy(DispenserStrategy.FIRST_WRITER_WINS).build());
        Dispenser clerks = clerk.get(d.name());
        for (int i = 0; i < 5; i++) {
            clerks.next();
        }
        d.voidNumber(3, "customer cancelled");
        d.setStart(10);
        assertThat(clerks.next()).isEqualTo(10);

        List<IssuedNumber> register = clerks.register();
        assertThat(register).extracting(IssuedNumber::number).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 10L);
        assertThat(register.get(0).issuedBy()).isEqualTo("dave");
        assertThat(register.get(2).voidReason()).isEqualTo("customer cancelled");
        assertThat(register.get(2).voidedBy()).isEqualTo("carol");
        assertThat(register.get(5).voidReason()).as("6..9, skipped: one entry").startsWith("skipped: setStart 10 by carol");
        assertThat(register.get(5).lastNumber()).isEqualTo(9);
        assertThat(register.get(5).count()).isEqualTo(4);
        assertThat(register.get(6).count()).isEqualTo(1);
        assertThat(clerks.register(7, 2)).as("a page from number 7: the entry holding it on")
                .extracting(IssuedNumber::number).containsExactly(6L, 10L);
        RegisterReport report = clerks.report();
        assertThat(report.isComplete()).isTrue();
        assertThat(report.missing()).isEmpty();
        assertThat(report.issued()).isEqualTo(5);
        assertThat(report.voided()).isEqualTo(5);
        assertThat(report.last()).isEqualTo(10);

        assertThat(failure(() -> d.voidNumber(3, "again")).getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_NOT_FOUND);
        assertThat(failure(() -> d.voidNumber(4, " ")).getMessage()).contains("a reason of 1 to 400 characters is required");
        EngineRuntimeException back = failure(() -> d.setStart(5));
        assertThat(back.getMessage()).contains("a registered series never issues a number twice");
    }

    @Test
    void setStartFarAhead_isOneRegisterRow_inAFewStatements_andSetStartPastTheLargestStartIsRefused() {
        Dispenser d = create(DispenserConfig.builder().register(true).build());
        d.next();
        EngineStatistics before = engine.statistics();
        d.setStart(1_000_002); // on the old code: a million voided rows, one INSERT each, while every next() waited
        assertThat(engine.statistics().since(before).statements()).as("statements of setStart").isLessThanOrEqualTo(6);
        assertThat(d.next()).isEqualTo(1_000_002);
        assertThat(d.register()).extracting(IssuedNumber::number, IssuedNumber::lastNumber)
                .containsExactly(tuple(1L, 1L), tuple(2L, 1_000_001L), tuple(1_000_002L, 1_000_002L));
        RegisterReport report = d.report();
        assertThat(report.issued()).isEqualTo(2);
        assertThat(report.voided()).isEqualTo(1_000_000);
        assertThat(report.isComplete()).isTrue();

        EngineRuntimeException huge = failure(() -> d.setStart(Long.MAX_VALUE));
        assertThat(huge).hasMessage("E_BAD_VALUE: Bad value for next number of dispenser " + d.name() + ": "
                + Long.MAX_VALUE + " [Long] (must be zero or more, from 0 to 1,000,000,000,000,000,000)");
        assertThat(d.current()).as("nothing changed").isEqualTo(1_000_002);
    }

    @Test
    void report_findsMissingRangesInTheDatabase_pagedFromANumber_evenWhenRowsWereDeletedAroundTheService() throws Exception {
        Dispenser d = create(DispenserConfig.builder().register(true).build());
        d.next(20);
        // Someone with database rights deletes register rows behind the engine's back: 3, 7..9 and 20.
        assertThat(behindTheEngine("DELETE FROM ts_dispenser_issue WHERE dispenser = ? AND number IN (3, 7, 8, 9, 20)", d)).isEqualTo(5);
        RegisterReport report = d.report();
        assertThat(report.isComplete()).isFalse();
        assertThat(report.missingCount()).isEqualTo(5);
        assertThat(report.issued()).isEqualTo(15);
        assertThat(report.missing()).containsExactly(new NumberRange(3, 3), new NumberRange(7, 9), new NumberRange(20, 20));
        assertThat(d.report(8, 1).missing()).as("one range, from the one holding 8").containsExactly(new NumberRange(7, 9));
        assertThat(d.report(10, 5).missing()).containsExactly(new NumberRange(20, 20));
        assertThat(failure(() -> d.report(1, 0))).hasMessage("E_BAD_VALUE: Bad value for report page size of dispenser " + d.name() + ": 0 [Integer] (from 1 to 10,000)");
    }

    @ParameterizedTest
    @EnumSource(DispenserStrategy.class)
    void numbersTheirCallersHave_areNotInDoubt_byAnyStrategy_norAnObjectsNorAKeyedRequests(DispenserStrategy strategy) {
        Dispenser d = create(DispenserConfig.builder().register(true).strategy(strategy).build());
        Dispenser clerks = clerk.get(d.name());
        clerks.next();
        clerks.next(3);
        clerks.nextFormatted();
        clerks.next(2, "run-" + strategy);
        String cls = "Numbered" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        ObjectStore os = engine.session("erin").objectStore();
        os.defineClass(cls, c -> c.int64("No"));
        d.numberOnCreate(cls, "No");
        os.createCustomObject(cls).save(RefreshMode.REFRESH);

        RegisterReport report = clerks.report();
        assertThat(report.issued()).isEqualTo(8);
        assertThat(report.inDoubt()).as("in doubt, once their callers had them").isZero();
        assertThat(report.numbersInDoubt()).isEmpty();
        assertThat(report.isAccountedFor()).isTrue();
        assertThat(clerks.register()).noneMatch(IssuedNumber::inDoubt);
    }

    @Test
    void numbersInDoubt_areCountedApart_listedWithWhoAndWhen_pagedFromANumber_andResolvedByAVoid() throws Exception {
        Dispenser d = create(DispenserConfig.builder().register(true).build());
        Dispenser clerks = clerk.get(d.name());
        clerks.next(6);
        clerks.report(); // this engine's callers have 1..6: confirmed before the report reads
        // As a process killed between a take's commit and its answer leaves them (the fault tests make it happen).
        assertThat(behindTheEngine("UPDATE ts_dispenser_issue SET in_doubt = true WHERE dispenser = ? AND number IN (2, 4, 5)", d)).isEqualTo(3);
        RegisterReport report = clerks.report();
        assertThat(report.issued()).as("issued, in doubt or not").isEqualTo(6);
        assertThat(report.isComplete()).as("nothing missing").isTrue();
        assertThat(report.inDoubt()).isEqualTo(3);
        assertThat(report.isAccountedFor()).isFalse();
        assertThat(report.numbersInDoubt()).extracting(IssuedNumber::number, IssuedNumber::issuedBy, IssuedNumber::inDoubt)
                .containsExactly(tuple(2L, "dave", true), tuple(4L, "dave", true), tuple(5L, "dave", true));
        assertThat(report.numbersInDoubt()).allSatisfy(entry -> assertThat(entry.issuedAt()).isNotNull());
        assertThat(clerks.report(3, 1).numbersInDoubt()).as("one, from number 3").extracting(IssuedNumber::number).containsExactly(4L);
        assertThat(clerks.register()).filteredOn(IssuedNumber::inDoubt).extracting(IssuedNumber::number).containsExactly(2L, 4L, 5L);

        d.voidNumber(4, "no document carries it");
        RegisterReport after = clerks.report();
        assertThat(after.inDoubt()).as("a voided number is accounted for").isEqualTo(2);
        assertThat(after.voided()).isEqualTo(1);
        assertThat(after.numbersInDoubt()).extracting(IssuedNumber::number).containsExactly(2L, 5L);
    }

    @Test
    void dispenserObjects_changeOnlyThroughTheDispenserService_andReadsNeedTheAdminRole() {
        Dispenser d = create(DispenserConfig.ofDefaults());
        Dispenser asClerk = clerk.get(d.name());
        assertThat(asClerk.next()).isEqualTo(1);
        UUID id = DispenserServices.idOf(d.name());
        ObjectStore dave = engine.session("dave").objectStore();
        ObjectStore carol = engine.session("carol", Set.of(DispensersConfig.DEFAULT_ADMIN_ROLE)).objectStore();

        EngineRuntimeException read = failure(() -> dave.fetchCustomObject(Dispenser.CLASS_NAME, id, PropertyFilter.ALL));
        assertThat(read).hasMessage("E_ACCESS_DENIED: dave may not read Dispenser {" + id + "}: reading objects of the"
                + " engine's class Dispenser needs the role dispenser-admin");
        assertThat(failure(() -> dave.fetchCustomObject("CustomObject", id, PropertyFilter.ALL)).getExceptionCode())
                .as("through its superclass too").isEqualTo(ExceptionCode.E_ACCESS_DENIED);
        assertThat(carol.fetchCustomObject(Dispenser.CLASS_NAME, id, PropertyFilter.ALL).getProperties().getInt64Value("Counter"))
                .as("the admin role reads it").isEqualTo(1);

        List<Runnable> attacks = new ArrayList<>();
        for (String cls : List.of(Dispenser.CLASS_NAME, "CustomObject")) {
            attacks.add(() -> {
                var o = dave.getCustomObject(cls, id);
                o.getProperties().putValue("Counter", 0L);
                o.save(RefreshMode.REFRESH);
            });
            attacks.add(() -> {
                var o = dave.getCustomObject(cls, id);
                o.lock(2_000_000_000, "until 2094");
                o.save(RefreshMode.REFRESH);
            });
            attacks.add(() -> {
                var o = dave.getCustomObject(cls, id);
                o.unlock();
                o.save(RefreshMode.REFRESH);
            });
            attacks.add(() -> {
                var o = dave.getCustomObject(cls, id);
                o.delete();
                o.save(RefreshMode.REFRESH);
            });
        }
        attacks.add(() -> {
            var o = carol.fetchCustomObject(Dispenser.CLASS_NAME, id, PropertyFilter.ALL);
            o.getProperties().putValue("Counter", 0L);
            o.save(RefreshMode.REFRESH);
        });
        attacks.add(() -> {
            var batch = dave.createUpdatingBatch(RefreshMode.REFRESH);
            var mine = dave.createCustomObject("CustomObject");
            var counter = dave.getCustomObject(Dispenser.CLASS_NAME, id);
            counter.getProperties().putValue("Counter", 0L);
            batch.add(mine, null);
            batch.add(counter, null);
            batch.updateBatch();
        });
        attacks.add(() -> dave.defineClass(Dispenser.CLASS_NAME, c -> c.int64("Backdoor")));
        attacks.add(() -> dave.defineClass("Fake" + UUID.randomUUID().toString().substring(0, 8),
                c -> c.superclass(Dispenser.CLASS_NAME)));
        attacks.add(() -> dave.addChangePreprocessor(Dispenser.CLASS_NAME, change -> change.properties().putValue("Counter", 0L)));
        for (Runnable attack : attacks) {
            EngineRuntimeException e = failure(attack);
            assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_ACCESS_DENIED);
            assertThat(e.getMessage()).contains("the engine's class Dispenser change only through the dispenser service");
        }
        assertThat(failure(attacks.get(0))).hasMessage("E_ACCESS_DENIED: dave may not save Dispenser {" + id + "}: objects of"
                + " the engine's class Dispenser change only through the dispenser service (engine.dispensers())");

        assertThat(asClerk.next()).as("nothing was changed: the series goes on").isEqualTo(2);
        assertThat(carol.fetchCustomObject(Dispenser.CLASS_NAME, id, PropertyFilter.ALL).isLocked()).isFalse();
    }

    @Test
    void cooperativeLockStrategy_makesAtMostItsPolicysAttempts_notTheirSquare() throws Exception {
        Dispenser d = create(DispenserConfig.ofDefaults());
        RetryPolicyConfig three = RetryPolicyConfig.builder().maxAttempts(3).waitDuration(Duration.ofMillis(1)).build();
        try (ContentEngine other = ContentEngine.open(EngineConfig.from(config()).clock(clock).retry(RetryPoliciesConfig.builder().policy("three", three).build()).build());
             java.sql.Connection c = java.sql.DriverManager.getConnection(config().jdbcUrl(), config().username(), config().password())) {
            // A node that crashed holding the counter's cooperative lock, for an hour.
            try (java.sql.PreparedStatement hold = c.prepareStatement("UPDATE ts_object SET lock_holder = 'crashed-node',"
                    + " lock_owner = 'take', lock_timeout = 3600, usn = usn + 1 WHERE id = ?")) {
                hold.setObject(1, DispenserServices.idOf(d.name()));
                assertThat(hold.executeUpdate()).isEqualTo(1);
                if (!c.getAutoCommit()) {
                    c.commit();
                }
            }
            Dispenser coop = other.session("dave").dispensers().get(d.name(), DispenserConfig.builder()
                    .strategy(DispenserStrategy.COOPERATIVE_LOCK).retryPolicy("three").build());
            EngineRuntimeException e = failure(coop::next);
            assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_RETRY_EXHAUSTED);
            assertThat(e.getMessage()).contains("maxAttempts 3 reached");
            assertThat(other.retryPolicies().get("three").metrics().attempts()).isEqualTo(3);
        }
    }

    @Test
    void aRequestKeySentAgain_getsTheSameNumbers_andTakesNothing_untilItsRetentionEnds() throws Exception {
        Dispenser d = create(DispenserConfig.ofDefaults());
        // Like the strategy, the retention is this process's setting: the server that keeps the keys decides.
        Dispenser asClerk = clerk.get(d.name(), DispenserConfig.builder().requestKeyRetention(Duration.ofHours(1)).build());
        NumberBlock first = asClerk.next(3, "wf-42/step-7");
        assertThat(asClerk.next(3, "wf-42/step-7")).isEqualTo(first);
        assertThat(asClerk.current()).isEqualTo(first.last());
        EngineRuntimeException other = failure(() -> asClerk.next(2, "wf-42/step-7"));
        assertThat(other).hasMessage("E_BAD_VALUE: Bad value for request key wf-42/step-7 of dispenser " + d.name() + ": 2 [Integer] (it was"
                + " first sent for 3 number(s) (" + first.first() + ".." + first.last() + "); a repeat must ask for the same count)");
        assertThat(asClerk.next(1, "wf-43").first()).isEqualTo(first.last() + 1);
        assertThat(failure(() -> asClerk.next(1, "has space")).getMessage()).contains("1 to 128 printable ASCII characters");

        // Eight threads send one new key at once: one block is taken, all eight get it.
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<NumberBlock>> same = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                same.add(pool.submit(() -> asClerk.next(2, "wf-44")));
            }
            Set<NumberBlock> blocks = new HashSet<>();
            for (Future<NumberBlock> f : same) {
                blocks.add(f.get(60, TimeUnit.SECONDS));
            }
            assertThat(blocks).singleElement().satisfies(b -> assertThat(b.first()).isEqualTo(first.last() + 2));
        } finally {
            pool.shutdownNow();
        }
        assertThat(asClerk.current()).isEqualTo(first.last() + 3);

        clock.advance(Duration.ofHours(1).plusSeconds(1));
        assertThat(asClerk.next(3, "wf-42/step-7").first()).as("after its retention, a new request").isEqualTo(first.last() + 4);
    }

    @Test
    void aRequestKeyIsItsSendersOwn_anotherUsersSameKey_isAnotherRequest_andSeesNothingOfTheFirst() {
        Dispenser d = create(DispenserConfig.ofDefaults());
        Dispenser asClerk = clerk.get(d.name(), DispenserConfig.ofDefaults());
        Dispenser asAdmin = admin.get(d.name(), DispenserConfig.ofDefaults());
        NumberBlock clerks = asClerk.next(2, "wf-60");
        NumberBlock admins = asAdmin.next(2, "wf-60");
        assertThat(admins.first()).as("another user's same key: new numbers, not the clerk's").isEqualTo(clerks.last() + 1);
        assertThat(asClerk.next(2, "wf-60")).as("the clerk's repeat still gets the clerk's").isEqualTo(clerks);
        assertThat(asAdmin.next(2, "wf-60")).isEqualTo(admins);
        assertThat(failure(() -> asAdmin.next(3, "wf-60")).getMessage()).as("refusals speak of the sender's own request")
                .contains("it was first sent for 2 number(s) (" + admins.first() + ".." + admins.last() + ")");
        assertThat(asClerk.current()).isEqualTo(admins.last());
    }

    @Test
    void aRequestKeySentAgainAtTheInstantItsRetentionEnds_stillGetsItsNumbers() {
        Dispenser d = create(DispenserConfig.ofDefaults());
        Dispenser asClerk = clerk.get(d.name(), DispenserConfig.builder().requestKeyRetention(Duration.ofHours(1)).build());
        NumberBlock first = asClerk.next(2, "wf-50");
        clock.advance(Duration.ofHours(1));
        // Held at its expiry instant, as the statement that sweeps lapsed keys holds it (db/Expiry).
        assertThat(asClerk.next(2, "wf-50")).isEqualTo(first);
        clock.advance(Duration.ofNanos(1_000));
        assertThat(asClerk.next(2, "wf-50").first()).as("a microsecond later, a new request").isEqualTo(first.last() + 1);
    }

    @Test
    void names_listEveryDispenserInTheDatabase_forAdminsOnly() {
        Dispenser d = create(DispenserConfig.ofDefaults());
        assertThat(admin.names()).contains(d.name()).isSorted();
        EngineRuntimeException e = failure(() -> clerk.names());
        assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_ACCESS_DENIED);
        assertThat(e.getMessage()).contains("dave may not list the dispenser names", "dispenser-admin");
    }

    @Test
    void adminOperations_needTheAdminRole_andChangeNothingOtherwise() {
        Dispenser d = create(DispenserConfig.ofDefaults());
        Dispenser asClerk = clerk.get(d.name());
        asClerk.next();
        for (Runnable op : List.<Runnable>of(asClerk::reset, () -> asClerk.setStart(50), () -> asClerk.voidNumber(1, "x"),
                () -> clerk.create(name("x"), DispenserConfig.ofDefaults()))) {
            EngineRuntimeException e = failure(op);
            assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_ACCESS_DENIED);
            assertThat(e.getMessage()).contains("dave may not", "dispenser-admin");
        }
        assertThat(asClerk.current()).isEqualTo(1);
        d.reset();
        assertThat(asClerk.next()).as("an unregistered series may restart").isEqualTo(1);
    }

    @Test
    void unknownDispenser_andConflictingRecreate_areClearErrors() {
        EngineRuntimeException unknown = failure(() -> clerk.get("no-such-dispenser"));
        assertThat(unknown.getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_NOT_FOUND);
        assertThat(unknown.getMessage()).contains("The dispenser no-such-dispenser is not defined");

        Dispenser d = create(DispenserConfig.builder().start(5).build());
        assertThat(admin.create(d.name(), DispenserConfig.builder().start(5).build()).name()).isEqualTo(d.name());
        EngineRuntimeException conflict = failure(() -> admin.create(d.name(), DispenserConfig.builder().start(6).build()));
        assertThat(conflict.getExceptionCode()).isEqualTo(ExceptionCode.E_BAD_VALUE);
        assertThat(conflict.getMessage()).contains("it exists with other series settings: start=5");
        assertThat(failure(() -> admin.create("bad name", DispenserConfig.ofDefaults())).getMessage()).contains("dispenser name");
    }

    @Test
    void numberOnCreate_numbersInTheCreatingTransaction_andARolledBackCreateLeavesNoGap() {
        Dispenser d = create(DispenserConfig.builder().format("INV-{seq:4}").build());
        String cls = "Invoice" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        ObjectStore os = engine.session("erin").objectStore();
        os.defineClass(cls, c -> c.superclass("Document").string("InvoiceNumber", 20).int64("Amount"));
        d.numberOnCreate(cls, "InvoiceNumber");
        os.addChangePreprocessor(cls, change -> {
            if (Long.valueOf(-1).equals(change.properties().getInt64Value("Amount"))) {
                throw new IllegalStateException("negative amount");
            }
        });

        Document first = os.createDocument(cls);
        first.save(RefreshMode.REFRESH);
        assertThat(first.getProperties().getStringValue("InvoiceNumber")).isEqualTo("INV-0001");

        Document failing = os.createDocument(cls);
        failing.getProperties().putValue("Amount", -1L);
        assertThat(failure(() -> failing.save(RefreshMode.REFRESH)).getExceptionCode()).isEqualTo(ExceptionCode.E_PREPROCESSOR_FAILED);

        Document second = os.createDocument(cls);
        second.save(RefreshMode.REFRESH);
        assertThat(second.getProperties().getStringValue("InvoiceNumber")).as("the failed create took no number").isEqualTo("INV-0002");
        assertThat(os.fetchDocument(cls, second.getId(), PropertyFilter.ALL).getProperties().getStringValue("InvoiceNumber"))
                .isEqualTo("INV-0002");
        assertThat(d.register()).extracting(IssuedNumber::objectId).containsExactly(first.getId(), second.getId());
        assertThat(d.report().isComplete()).isTrue();
    }

    @Test
    void numberOnCreate_refusesPropertiesItCannotFill() {
        Dispenser d = create(DispenserConfig.ofDefaults());
        String cls = "Numbered" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        ObjectStore os = engine.session("erin").objectStore();
        os.defineClass(cls, c -> c.bool("Flag"));
        assertThat(failure(() -> d.numberOnCreate(cls, "Missing")).getExceptionCode()).isEqualTo(ExceptionCode.E_PROPERTY_NOT_DEFINED);
        assertThat(failure(() -> d.numberOnCreate(cls, "Flag")).getMessage()).contains("a dispenser numbers Int64 or String properties");
    }

    static List<Long> range(long first, long count) {
        return LongStream.range(first, first + count).boxed().toList();
    }
}
