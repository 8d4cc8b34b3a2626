package dev.turnstile.engine.db;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.DispensersConfig;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** One server per shared H2 file, and what an engine says when there cannot be one. */
class SharedH2FileTest {
    /** A killed server loses no answered commit (H2ServingProcessKilledTest): it writes each before answering, unless the URL says. */
    @Test
    void theServerWritesEachCommitBeforeAnsweringIt_unlessTheUrlSetsItsOwnWriteDelay() {
        assertThat(SharedH2File.writtenBeforeAnswered("jdbc:h2:file:./x;AUTO_SERVER=TRUE"))
                .isEqualTo("jdbc:h2:file:./x;AUTO_SERVER=TRUE;WRITE_DELAY=0");
        assertThat(SharedH2File.writtenBeforeAnswered("jdbc:h2:file:./x;AUTO_SERVER=TRUE;write_delay=500"))
                .isEqualTo("jdbc:h2:file:./x;AUTO_SERVER=TRUE;write_delay=500");
    }

    @Test
    void twoEnginesOnOneFile_shareOneServer_andAHostConnectionReachesItToo() throws Exception {
        Path file = Path.of("target", "h2", "shared-" + UUID.randomUUID()).toAbsolutePath();
        EngineConfig config = EngineConfig.builder().jdbcUrl("jdbc:h2:file:" + file + ";AUTO_SERVER=TRUE").build();
        try (ContentEngine first = ContentEngine.open(config)) {
            long server = SharedH2File.serving(file).orElseThrow().pid();
            assertThat(server).as("not this process").isNotEqualTo(ProcessHandle.current().pid());
            try (ContentEngine second = ContentEngine.open(config);
                 Connection host = DriverManager.getConnection(config.jdbcUrl(), "sa", "")) {
                assertThat(SharedH2File.serving(file).orElseThrow().pid()).isEqualTo(server);
                assertThat(((org.h2.jdbc.JdbcConnection) host).getSession()).as("the host's connection, remote")
                        .isInstanceOf(org.h2.engine.SessionRemote.class);
            }
        }
    }

    @Test
    void aServerIsRecognizedByItsStartInBootTicks_whichNoWallClockStepMoves() throws Exception {
        Path proc = Path.of("/proc/self/stat");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(proc), "Linux's /proc");
        // What the kernel recorded: clock ticks from boot to this process's start (field 22). The
        // instant a JVM makes of it depends on the boot time that JVM read when it started, and a
        // JVM started before a wall-clock step named the server 13 s off: it never recognized it.
        String stat = Files.readString(proc);
        String ticks = stat.substring(stat.lastIndexOf(')') + 2).split(" ")[19];
        assertThat(SharedH2File.startOf(ProcessHandle.current())).isEqualTo("boot tick " + ticks);

        Path file = Path.of("target", "h2", "ticks-" + UUID.randomUUID()).toAbsolutePath();
        SharedH2File.writeServerInfo(file, ProcessHandle.current(), 4321);
        try {
            assertThat(Files.readString(Path.of(file + ".server"))).contains("started=boot tick " + ticks);
            assertThat(SharedH2File.serving(file)).contains(new SharedH2File.Served(ProcessHandle.current().pid(), 4321));
        } finally {
            Files.deleteIfExists(Path.of(file + ".server"));
        }
    }

    @Test
    void aDeletedFile_isNotServedAnyMore_andTheNextEngineGetsANewDatabase() throws Exception {
        Path dir = Path.of("target", "h2", "deleted-" + UUID.randomUUID()).toAbsolutePath();
        Path file = dir.resolve("db");
        EngineConfig config = EngineConfig.builder().jdbcUrl("jdbc:h2:file:" + file + ";AUTO_SERVER=TRUE").build();
        ProcessHandle server;
        try (ContentEngine engine = ContentEngine.open(config)) {
            engine.session("admin", Set.of(DispensersConfig.DEFAULT_ADMIN_ROLE)).dispensers().create("gone",
                    DispenserConfig.builder().build());
            assertThat(engine.dispensers().get("gone").next()).isEqualTo(1);
            server = ProcessHandle.of(SharedH2File.serving(file).orElseThrow().pid()).orElseThrow();
        }
        // rm -rf of the data directory while the server waits out its idle time: H2 would go on
        // writing to the deleted file, and write its lock file again for the next engine to find.
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        // It notices within a second; its idle time (15 s from the close) would end it later than this.
        server.onExit().get(H2FileServer.IDLE.toSeconds() - 5, TimeUnit.SECONDS);
        try (ContentEngine engine = ContentEngine.open(config)) {
            assertThatThrownBy(() -> engine.dispensers().get("gone").next()).as("the deleted database's dispenser")
                    .isInstanceOfSatisfying(EngineRuntimeException.class,
                            e -> assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_NOT_FOUND));
        }
    }

    @Test
    void aFileThatAnotherProcessHoldsAlone_failsTheOpen_namingTheFileAndWhy() throws Exception {
        Path file = Path.of("target", "h2", "held-" + UUID.randomUUID()).toAbsolutePath();
        try (Connection alone = DriverManager.getConnection("jdbc:h2:file:" + file, "sa", "")) {
            EngineConfig config = EngineConfig.builder().jdbcUrl("jdbc:h2:file:" + file + ";AUTO_SERVER=TRUE")
                    .connectionTimeout(Duration.ofSeconds(1)).build();
            assertThatThrownBy(() -> ContentEngine.open(config).close())
                    .isInstanceOfSatisfying(EngineRuntimeException.class,
                            e -> assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_DATABASE_UNAVAILABLE))
                    .hasMessageStartingWith("E_DATABASE_UNAVAILABLE: Cannot connect to jdbc:h2:file:" + file + ";AUTO_SERVER=TRUE as sa: "
                            + "The server process for " + file + " exited with 2: ")
                    .hasMessageContaining("Database may be already in use");
        }
    }
}
