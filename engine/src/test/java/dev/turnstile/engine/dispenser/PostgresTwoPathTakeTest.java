package dev.turnstile.engine.dispenser;

import tools.jackson.databind.ObjectMapper;
import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.DispensersConfig;
import dev.turnstile.api.dispenser.NumberBlock;
import dev.turnstile.api.dispenser.ResetPeriod;
import dev.turnstile.engine.EngineInternals;
import dev.turnstile.engine.MutableClock;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The take decided in one statement on PostgreSQL ({@link PostgresDispenserStatements}) and the take through
 * the object layer ({@link Pessimistic#take} under {@link Series#settle} and {@link Register#record})
 * run the same table of cases — periods starting and restarting, a clock that goes back, a start
 * value set, register rows — each on a dispenser of its own, and must answer the same numbers and
 * leave the same counter row and register rows.
 */
class PostgresTwoPathTakeTest {
    private static final String T0 = "2026-12-31T23:59:58Z";

    /** A step of a case: at {@code at}, take {@code count}; or, with {@code setStart}, set the start value. */
    record Step(String at, int count, Long setStart) {
        static Step take(String at, int count) {
            return new Step(at, count, null);
        }

        static Step setStart(String at, long start) {
            return new Step(at, 0, start);
        }
    }

    record Case(String name, ResetPeriod reset, long start, boolean register, List<Step> steps) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Case> cases() {
        return Stream.of(
                new Case("never resets", ResetPeriod.NEVER, 1, false,
                        List.of(Step.take(T0, 1), Step.take(T0, 3), Step.take("2027-01-01T00:00:01Z", 2))),
                new Case("never resets, registered", ResetPeriod.NEVER, 100, true,
                        List.of(Step.take(T0, 1), Step.take(T0, 4))),
                new Case("yearly, across New Year", ResetPeriod.YEARLY, 1, true,
                        List.of(Step.take(T0, 2), Step.take("2027-01-01T00:00:00Z", 3), Step.take("2027-01-01T00:00:01Z", 1))),
                new Case("daily, a clock that goes back a day never takes the period back", ResetPeriod.DAILY, 1, true,
                        List.of(Step.take("2027-01-02T10:00:00Z", 2), Step.take("2027-01-03T10:00:00Z", 1),
                                Step.take("2027-01-02T23:00:00Z", 2))),
                new Case("monthly from 1000, a start value set", ResetPeriod.MONTHLY, 1000, true,
                        List.of(Step.take(T0, 2), Step.setStart(T0, 5000), Step.take(T0, 1),
                                Step.take("2027-01-15T00:00:00Z", 2))));
    }

    private static final EngineConfig BASE = TestDatabases.postgres();
    private static final MutableClock CLOCK = new MutableClock(Instant.parse(T0));
    private static ContentEngine engine;

    @BeforeAll
    static void open() {
        engine = ContentEngine.open(EngineConfig.from(BASE).clock(CLOCK).build());
    }

    @AfterAll
    static void close() {
        engine.close();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void oneStatement_andTheObjectLayer_takeTheSameNumbers_andLeaveTheSameRows(Case c) throws Exception {
        DispenserServices services = EngineInternals.dispenserServices(engine);
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String fastName = "fast-" + suffix;
        String genericName = "generic-" + suffix;
        DispenserConfig config = DispenserConfig.builder().reset(c.reset()).start(c.start()).register(c.register()).build();
        var admin = engine.session("admin", Set.of(DispensersConfig.DEFAULT_ADMIN_ROLE)).dispensers();
        admin.create(fastName, config);
        admin.create(genericName, config);
        UUID fast = DispenserServices.idOf(fastName);
        UUID generic = DispenserServices.idOf(genericName);

        List<String> fastBlocks = new ArrayList<>();
        List<String> genericBlocks = new ArrayList<>();
        for (Step step : c.steps()) {
            CLOCK.set(Instant.parse(step.at()));
            if (step.setStart() != null) {
                admin.get(fastName).setStart(step.setStart());
                admin.get(genericName).setStart(step.setStart());
                continue;
            }
            NumberBlock one = services.statements.take(fast, fastName, step.count(), "clerk");
            assertThat(one).as("the one-statement path ran").isNotNull();
            NumberBlock other = services.objects.inTransaction(() -> "the object layer's take", "clerk",
                    tx -> Pessimistic.take(tx, generic, step.count()));
            fastBlocks.add(text(one));
            genericBlocks.add(text(other));
        }

        assertThat(fastBlocks).as("numbers answered").isEqualTo(genericBlocks);
        assertThat(row(BASE, fast)).as("counter row").isEqualTo(row(BASE, generic));
        List<String> rows = register(BASE, fastName);
        assertThat(rows).as("register rows").isEqualTo(register(BASE, genericName));
        assertThat(rows.stream().filter(r -> r.contains(" clerk ")).count()).as("a register row per number taken, if registered")
                .isEqualTo(c.register() ? fastBlocks.stream().mapToLong(b -> Long.parseLong(b.split(" ")[1])).sum() : 0);
    }

    private static String text(NumberBlock b) {
        return b.first() + " " + b.count() + " " + b.period() + " " + b.issuedOn();
    }

    /** The counter row's values but its name, its USN, and the day it was last written. */
    private static Map<String, Object> row(EngineConfig db, UUID id) throws Exception {
        try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.username(), db.password());
             PreparedStatement q = c.prepareStatement("SELECT prop_values, usn, CAST(date_last_modified AT TIME ZONE 'UTC' AS date)"
                     + " FROM ts_object WHERE id = ?")) {
            q.setObject(1, id);
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                @SuppressWarnings("unchecked")
                Map<String, Object> values = new TreeMap<>(new ObjectMapper().readValue(rs.getString(1), Map.class));
                values.remove(Series.NAME);
                values.put("(usn)", rs.getLong(2));
                values.put("(day last modified)", rs.getString(3));
                return values;
            }
        }
    }

    /** The register's rows of a dispenser: period, number, issued to, and the day. */
    private static List<String> register(EngineConfig db, String name) throws Exception {
        List<String> rows = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.username(), db.password());
             PreparedStatement q = c.prepareStatement("SELECT period, number, issued_by, CAST(issued_at AT TIME ZONE 'UTC' AS date)"
                     + " FROM ts_dispenser_issue WHERE dispenser = ? ORDER BY issued_at, number")) {
            q.setString(1, name);
            try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    rows.add(rs.getString(1) + " " + rs.getLong(2) + " " + rs.getString(3) + " " + rs.getString(4));
                }
            }
        }
        return rows;
    }
}
