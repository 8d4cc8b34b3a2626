package dev.turnstile.engine.objects;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.engine.EngineInternals;
import dev.turnstile.engine.MutableClock;
import dev.turnstile.engine.TestDatabases;
import dev.turnstile.engine.breaks.LockBreaks;
import dev.turnstile.engine.db.Database;
import dev.turnstile.engine.locks.CooperativeLocks;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lock request decided in one statement on PostgreSQL and H2 ({@link ObjectStatements#lockUpdate},
 * FileNet's rule restated in SQL) and one decided in a transaction by {@link LockRules#next}, as on
 * MariaDB, play the same script — a free lock, another user's refused, the holder
 * refreshing it (its token kept), an exclusive request refused by its own holder, a lock lapsed by
 * DateLastModified + LockTimeout taken over, an unlock and a new lock — with each user in an
 * engine of their own, so the database decides every request. They must answer alike, refusals
 * word for word, and leave the same row after every step.
 */
class TwoPathLockTest {
    private static final String CLASS = "TwoPathLock";
    private static final Instant START = Instant.parse("2026-12-31T23:59:30Z");

    /** {@code verb}: lock, lockExclusively, unlock, or wait ({@code seconds} pass). */
    record Step(String user, String verb, int seconds, String expected) {
    }

    private static final List<Step> SCRIPT = List.of(
            new Step("alice", "lock", 30, "granted"),
            new Step("bob", "lock", 30, "E_OBJECT_LOCKED"),
            new Step("alice", "lock", 60, "granted"),
            new Step("alice", "lockExclusively", 60, "E_OBJECT_LOCKED"),
            new Step(null, "wait", 60, "waited"),
            new Step("bob", "lock", 20, "E_OBJECT_LOCKED"),
            new Step(null, "wait", 1, "waited"),
            new Step("bob", "lockExclusively", 20, "granted"),
            new Step("alice", "lock", 20, "E_OBJECT_LOCKED"),
            new Step("bob", "unlock", 0, "granted"),
            new Step("alice", "lockExclusively", 5, "granted"),
            new Step(null, "wait", 6, "waited"),
            new Step("alice", "lock", 5, "granted"));

    @ParameterizedTest
    @ValueSource(strings = {"PostgreSQL", "H2"})
    void oneStatement_andTheTransaction_answerAlike_andLeaveTheSameRow_stepByStep(String db) throws Exception {
        EngineConfig config = db.equals("H2") ? TestDatabases.h2("two-path-lock") : TestDatabases.postgres();
        MutableClock clock = new MutableClock(START);
        try (ContentEngine engine = ContentEngine.open(EngineConfig.from(config).clock(clock).build())) {
            engine.session("admin").objectStore().defineClass(CLASS, c -> c.int64("N"));
            Database database = EngineInternals.database(engine);
            List<String> fast = play(engine, database, true, clock, config);
            List<String> generic = play(engine, database, false, clock, config);

            assertThat(fast).isEqualTo(generic);
            assertThat(fast.stream().filter(s -> s.startsWith("answer ")).map(s -> s.replaceAll(": .*", "")).toList())
                    .as("the script's answers")
                    .containsExactlyElementsOf(SCRIPT.stream().map(s -> "answer " + s.user() + " " + s.verb() + " " + s.expected()).toList());
        }
    }

    /** The script on a new object, every user through engine services of their own; after each step its answer and the row. */
    private static List<String> play(ContentEngine engine, Database database, boolean lockStatement, MutableClock clock,
                                     EngineConfig config) throws Exception {
        clock.set(START);
        CustomObject created = engine.session("admin").objectStore().createCustomObject(CLASS);
        created.save(RefreshMode.REFRESH);
        UUID id = created.getId();
        Map<String, ObjectStoreServices> engines = new LinkedHashMap<>();
        Map<UUID, String> tokens = new LinkedHashMap<>();
        List<String> seen = new ArrayList<>();
        for (Step step : SCRIPT) {
            String answer;
            if (step.verb().equals("wait")) {
                clock.advance(Duration.ofSeconds(step.seconds()));
                answer = "waited";
            } else {
                ObjectStoreServices services = engines.computeIfAbsent(step.user(),
                        u -> new ObjectStoreServices(database, new LockBreaks(database, "lock-breaker"), new CooperativeLocks(database, Duration.ZERO),
                                lockStatement ? ObjectStatements.of(database.productName()) : new ObjectStatements()));
                try {
                    CustomObject o;
                    if (step.verb().equals("unlock")) {
                        o = services.objectStore(step.user(), Set.of()).fetchCustomObject(CLASS, id, PropertyFilter.ALL);
                        o.unlock();
                    } else {
                        o = services.objectStore(step.user(), Set.of()).getCustomObject(CLASS, id);
                        if (step.verb().equals("lock")) {
                            o.lock(step.seconds(), "owner " + step.user());
                        } else {
                            o.lockExclusively(step.seconds(), "owner " + step.user());
                        }
                    }
                    o.save(RefreshMode.REFRESH);
                    answer = "granted";
                } catch (EngineRuntimeException e) {
                    answer = e.getExceptionCode() + ": " + e.getMessage().replace(id.toString(), "ID");
                }
            }
            seen.add("answer " + step.user() + " " + step.verb() + " " + answer);
            seen.add(row(config, id, tokens));
        }
        return seen;
    }

    /** The object's row: its lock (the token as T1, T2… in order of appearance), USN, last modifier and date. */
    private static String row(EngineConfig config, UUID id, Map<UUID, String> tokens) throws Exception {
        try (Connection c = DriverManager.getConnection(config.jdbcUrl(), config.username(), config.password());
             PreparedStatement q = c.prepareStatement("SELECT lock_holder, lock_owner, lock_token, lock_timeout, usn, last_modifier,"
                     + " date_last_modified FROM ts_object WHERE id = ?")) {
            q.setObject(1, id);
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                UUID token = rs.getObject(3, UUID.class);
                String t = token == null ? "-" : tokens.computeIfAbsent(token, k -> "T" + (tokens.size() + 1));
                return "row " + rs.getString(1) + " " + rs.getString(2) + " " + t + " " + rs.getObject(4) + " usn " + rs.getLong(5)
                        + " by " + rs.getString(6) + " at " + rs.getObject(7, java.time.OffsetDateTime.class).toInstant();
            }
        }
    }
}
