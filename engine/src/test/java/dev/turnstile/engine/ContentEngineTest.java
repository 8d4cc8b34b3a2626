package dev.turnstile.engine;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.changes.ChangesConfig;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.retry.RetryPoliciesConfig;
import dev.turnstile.api.retry.RetryPolicyConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ContentEngineTest {
    @TempDir
    Path dir;

    @Test
    void opensFromAYamlFileThroughServiceLoader() throws Exception {
        Path db = dir.resolve("db");
        Path file = Files.writeString(dir.resolve("turnstile.yaml"),
                "database:\n  url: jdbc:h2:file:" + db + ";AUTO_SERVER=TRUE\n  maxPoolSize: 3\n");
        try (ContentEngine engine = ContentEngine.open(file)) {
            assertThat(engine.config().maxPoolSize()).isEqualTo(3);
            ObjectStore os = engine.session("alice").objectStore();
            os.defineClass("Thing", c -> c.string("Name"));
            CustomObject o = os.createCustomObject("Thing");
            o.save(RefreshMode.REFRESH);
            assertThat(o.getCreator()).isEqualTo("alice");
        }
    }

    @Test
    void openingWhileTheDatabaseIsDown_saysItIsUnreachable_withTheUrlAndNoPassword() {
        for (String url : new String[] {"jdbc:postgresql://127.0.0.1:1/test", "jdbc:mariadb://127.0.0.1:1/test"}) {
            // The open waits a down database out within the dispenser policy's total wait (OpenThroughAnOutageTest): short here.
            EngineConfig config = EngineConfig.builder().jdbcUrl(url).username("app").password("hunter2-secret")
                    .connectionTimeout(Duration.ofMillis(500))
                    .retry(RetryPoliciesConfig.builder().policy(DispenserConfig.DEFAULT_RETRY_POLICY,
                            RetryPolicyConfig.builder().maxTotalWait(Duration.ofSeconds(1)).build()).build())
                    .build();
            assertThatThrownBy(() -> ContentEngine.open(config))
                    .isInstanceOfSatisfying(EngineRuntimeException.class,
                            e -> assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_DATABASE_UNAVAILABLE))
                    .hasMessageStartingWith("E_DATABASE_UNAVAILABLE: Cannot open Turnstile on " + url + " as app: ")
                    .hasMessageContaining("Cannot connect to " + url + " as app: ")
                    .message().doesNotContain("hunter2-secret");
        }
    }

    @Test
    void injectedClockStampsTheDates() {
        MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
        EngineConfig config = EngineConfig.from(TestDatabases.h2("clock")).clock(clock).build();
        try (ContentEngine engine = ContentEngine.open(config)) {
            ObjectStore os = engine.session("alice").objectStore();
            os.defineClass("Clocked", c -> c.integer32("N"));
            CustomObject o = os.createCustomObject("Clocked");
            o.save(RefreshMode.REFRESH);
            clock.advance(Duration.ofHours(5));
            CustomObject other = engine.session("bob").objectStore().fetchCustomObject("Clocked", o.getId(), PropertyFilter.ALL);
            other.getProperties().putValue("N", 1);
            other.save(RefreshMode.REFRESH);
            assertThat(other.getDateCreated()).isEqualTo(Instant.parse("2030-01-01T00:00:00Z"));
            assertThat(other.getDateLastModified()).isEqualTo(Instant.parse("2030-01-01T05:00:00Z"));
            assertThat(other.getLastModifier()).isEqualTo("bob");
        }
    }

    @Test
    void defaultClockIsTheDatabases_closeToThisMachinesOnALocalServer() {
        try (ContentEngine engine = ContentEngine.open(TestDatabases.h2("dbclock"))) {
            ObjectStore os = engine.session("alice").objectStore();
            os.defineClass("DbClocked", c -> c.integer32("N"));
            Instant before = Instant.now();
            CustomObject o = os.createCustomObject("DbClocked");
            o.save(RefreshMode.REFRESH);
            assertThat(Duration.between(before, o.getDateCreated()).abs()).isLessThan(Duration.ofSeconds(5));
        }
    }

    @Test
    void databaseOfAnEarlierRelease_with32BitUsns_isWidenedAtOpen() throws Exception {
        EngineConfig config = EngineConfig.builder().jdbcUrl("jdbc:h2:file:" + dir.resolve("old") + ";AUTO_SERVER=TRUE").build();
        ContentEngine.open(config).close();
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(config.jdbcUrl(), "sa", "");
             java.sql.Statement s = c.createStatement()) {
            // as an early build of release 0.1 made it: 32-bit USNs, no migration history
            s.execute("ALTER TABLE ts_object ALTER COLUMN usn SET DATA TYPE INTEGER");
            s.execute("DROP TABLE \"" + dev.turnstile.engine.db.Migrations.HISTORY_TABLE + "\"");
        }
        try (ContentEngine engine = ContentEngine.open(config)) {
            ObjectStore os = engine.session("alice").objectStore();
            os.defineClass("Old", c -> c.integer32("N"));
            CustomObject o = os.createCustomObject("Old");
            o.save(RefreshMode.REFRESH);
        }
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(config.jdbcUrl(), "sa", "");
             java.sql.ResultSet rs = c.getMetaData().getColumns(null, null, "TS_OBJECT", "USN")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt("DATA_TYPE")).isEqualTo(java.sql.Types.BIGINT);
        }
    }

    @Test
    void badUserAndUnreachableDatabase_areClearErrors() {
        try (ContentEngine engine = ContentEngine.open(TestDatabases.h2("users"))) {
            assertThatThrownBy(() -> engine.session(" "))
                    .hasMessage("E_BAD_VALUE: Bad value for user: \" \" (must be a non-blank name of at most 128 characters)");
        }
        EngineConfig nowhere = EngineConfig.builder().jdbcUrl("jdbc:postgresql://127.0.0.1:1/none")
                .connectionTimeout(Duration.ofMillis(500))
                // The open waits a down database out within the dispenser policy's total wait (a minute by default): short here.
                .retry(RetryPoliciesConfig.builder().policy(DispenserConfig.DEFAULT_RETRY_POLICY,
                        RetryPolicyConfig.builder().maxTotalWait(Duration.ofSeconds(1)).build()).build())
                .build();
        assertThatThrownBy(() -> ContentEngine.open(nowhere))
                .isInstanceOfSatisfying(EngineRuntimeException.class,
                        e -> assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_DATABASE_UNAVAILABLE))
                .hasMessageContaining("jdbc:postgresql://127.0.0.1:1/none");
    }

    @Test
    void closeStopsTheDispatchersItStarted_andAClosedEngineSaysSo() throws Exception {
        ContentEngine engine = ContentEngine.open(EngineConfig.from(TestDatabases.h2("close")).changes(ChangesConfig.of(true)).build());
        dev.turnstile.api.changes.ChangeDispatcher d = engine.changes().dispatcher(dev.turnstile.api.changes.DispatcherConfig.builder()
                .name("closing-" + java.util.UUID.randomUUID()).build());
        d.start();
        String threadName = d.name();
        assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName).contains(threadName);
        assertThat(engine.changes().dispatchers()).containsExactly(d);
        assertThat(d.isRunning()).isTrue();
        assertThat(d.failedPasses()).isZero();
        engine.close();
        assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName).doesNotContain(threadName);
        assertThat(d.isRunning()).isFalse();
        ObjectStore os = engine.session("late").objectStore();
        EngineRuntimeException e = org.assertj.core.api.Assertions.catchThrowableOfType(EngineRuntimeException.class,
                () -> os.fetchCustomObject("Anything", java.util.UUID.randomUUID(), PropertyFilter.ALL));
        assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_ENGINE_CLOSED);
        assertThat(e.getMessage()).startsWith("E_ENGINE_CLOSED: This engine is closed (ContentEngine.close() was called)");
    }
}
