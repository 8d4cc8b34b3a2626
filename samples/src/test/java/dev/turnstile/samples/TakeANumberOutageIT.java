package dev.turnstile.samples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * take-a-number when PostgreSQL goes down for longer than the dispenser policy waits (cut to 1 s
 * here): the command still prints its summary — what was taken, what failed, what it knows is lost
 * — with one line per failure and no stack trace, and exits 1. Stops the shared server for real.
 */
@Tag("faults")
class TakeANumberOutageIT {
    @TempDir
    Path dir;

    @Test
    void databaseDownPastThePolicy_summaryStillPrinted_noStackTrace() throws Exception {
        Path config = Files.writeString(dir.resolve("turnstile.yaml"), """
                database:
                  url: jdbc:postgresql://127.0.0.1:5432/test
                  username: postgres
                  connectionTimeout: 500ms
                retry:
                  instances:
                    dispenser:
                      maxAttempts: 1000000
                      waitDuration: 10ms
                      maxTotalWait: 1s
                      retryCodes: [E_OBJECT_MODIFIED, E_DATABASE_UNAVAILABLE]
                """);
        Process cli = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), "take-a-number", "--config", config.toString(),
                "--dispenser", "outage-" + UUID.randomUUID().toString().substring(0, 8), "--processes", "2", "--workers", "2",
                "--count", "1000000", "--strategy", "PESSIMISTIC").start();
        StringBuilder err = new StringBuilder();
        java.util.concurrent.CountDownLatch taking = new java.util.concurrent.CountDownLatch(1);
        Thread drain = new Thread(() -> {
            try (var r = new InputStreamReader(cli.getErrorStream(), StandardCharsets.UTF_8)) {
                for (int c; (c = r.read()) != -1; ) {
                    err.append((char) c);
                    if (c == '%') {
                        taking.countDown(); // the progress bar: numbers are being taken
                    }
                }
            } catch (java.io.IOException ignored) {
                // the command ended
            }
        });
        drain.start();
        String out;
        try {
            assertThat(taking.await(2, TimeUnit.MINUTES)).as("the progress bar appears; stderr: %s", err).isTrue();
            pgctl("stop");
            assertThat(cli.waitFor(3, TimeUnit.MINUTES)).as("the command ends by itself").isTrue();
            out = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            drain.join(TimeUnit.MINUTES.toMillis(1));
        } finally {
            pgctl("start");
            cli.destroyForcibly();
        }
        System.out.println(out); // the summary, for the record
        assertThat(cli.exitValue()).isEqualTo(1);
        assertThat(out).contains("call(s) failed; a failed call's number, if the counter moved for it, is lost:")
                .contains("E_DATABASE_UNAVAILABLE").contains("the counter moved by unknown")
                .containsPattern("numbers 1\\.\\.1,000,000: [\\d,]+ taken, 0 duplicates");
        assertThat(err).doesNotContain("\tat ");
        for (long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2); ; ) {
            try (var ignored = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "")) {
                break; // back for the tests after this one
            } catch (java.sql.SQLException e) {
                assertThat(System.nanoTime() - deadline).as("PostgreSQL is back").isNegative();
            }
        }
    }

    private static void pgctl(String action) throws Exception {
        String version;
        try (Stream<Path> versions = Files.list(Path.of("/etc/postgresql"))) {
            version = versions.map(p -> p.getFileName().toString()).sorted().findFirst().orElseThrow();
        }
        Process p = new ProcessBuilder(List.of("pg_ctlcluster", "--skip-systemctl-redirect", version, "main", action))
                .redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(2, TimeUnit.MINUTES) && p.exitValue() == 0).as("pg_ctlcluster %s: %s", action, output).isTrue();
    }
}
