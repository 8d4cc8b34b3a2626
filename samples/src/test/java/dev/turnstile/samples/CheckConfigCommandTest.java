package dev.turnstile.samples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code check-config} as a deployment pipeline runs it: no database opened, every error, the effective policies. */
class CheckConfigCommandTest {
    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(Path... files) {
        String[] args = java.util.stream.Stream.concat(java.util.stream.Stream.of("check-config"),
                java.util.Arrays.stream(files).map(Path::toString)).toArray(String[]::new);
        return Main.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
    }

    @Test
    void aGoodFile_printsTheEffectivePolicies_withInheritanceResolved_withoutTouchingTheDatabase() throws IOException {
        Files.writeString(dir.resolve("policies.yaml"), "instances:\n  locks: {baseConfig: patient, maxAttempts: 200}\n");
        Path file = Files.writeString(dir.resolve("turnstile.yaml"), """
                database:
                  url: jdbc:postgresql://127.0.0.1:1/never-contacted
                retry:
                  policyFile: policies.yaml
                  configs:
                    default: {maxAttempts: 5, waitDuration: 50ms}
                    patient: {waitDuration: 10ms, enableRandomizedWait: true, randomizedWaitFactor: 0.5, maxTotalWait: 30s,
                              retryCodes: [E_OBJECT_LOCKED]}
                """);
        assertThat(run(file)).as(err.toString()).isZero();
        assertThat(out.toString()).isEqualTo(file + ": OK\n"
                + "retry policies (inheritance resolved, built-in ones included):\n"
                + "  default: 5 attempts, wait 50ms, no total limit; retries codes [E_OBJECT_MODIFIED, E_OBJECT_LOCKED]\n"
                + "  dispenser: " + CheckConfigCommand.describe(dev.turnstile.engine.retry.DefaultRetryPolicies.DISPENSER_DEFAULTS) + "\n"
                + "  locks: 200 attempts, wait 10ms ±50%, at most 30s in all; retries codes [E_OBJECT_LOCKED]\n"
                + "  tree-lock: " + CheckConfigCommand.describe(dev.turnstile.engine.retry.DefaultRetryPolicies.TREE_LOCK_DEFAULTS) + "\n");
    }

    @Test
    void aBadFile_listsEveryErrorFound_notJustTheFirst_andExitsOne() throws IOException {
        Files.writeString(dir.resolve("policies.yaml"), "instances:\n  p: {retryExceptions: [com.example.Missing]}\n");
        Path file = Files.writeString(dir.resolve("turnstile.yaml"), """
                database:
                  maxPoolSize: 0
                treeLocks:
                  lease: soon
                retry:
                  policyFile: policies.yaml
                  instances:
                    a: {maxAttempts: 0}
                    b: {waitDuration: 36500d}
                dispensers:
                  series:
                    invoice: {retryPolicy: patient}
                """);
        assertThat(run(file)).isEqualTo(1);
        String policies = dir.resolve("policies.yaml").toAbsolutePath().toString();
        assertThat(err.toString()).isEqualTo(file + ": 6 errors\n"
                + "  E_CONFIG_INVALID: " + file + ":2: database.maxPoolSize = 0 [Integer]: from 1 to 1,000\n"
                + "  E_CONFIG_INVALID: " + file + ":4: treeLocks.lease = \"soon\": must be a duration such as 500ms, 10s, 1m or PT10S\n"
                + "  E_CONFIG_INVALID: " + file + ":8: retry.instances.a.maxAttempts = \"0\": from 1 to 10,000,000\n"
                + "  E_CONFIG_INVALID: " + file + ":9: retry.instances.b.waitDuration = \"36500d\": from 1ms to 1h\n"
                + "  E_CONFIG_INVALID: " + policies + ":2: instances.p.retryExceptions = \"com.example.Missing\": no such exception class\n"
                + "  E_CONFIG_INVALID: " + file + ":12: dispensers.series.invoice.retryPolicy = \"patient\": no such retry policy;"
                + " known policies are [default, dispenser, tree-lock]\n");
        assertThat(out.toString()).isEmpty();
    }

    /** Issue 45: a valid file with exponential backoff and no cap crashed the printing of its policies (exit 1, a Java message). */
    @Test
    void aValidFileWithBackoffAndNoCap_isOk_neverACrash() throws IOException {
        Path file = Files.writeString(dir.resolve("turnstile.yaml"), "retry:\n  instances:\n    p:\n      enableExponentialBackoff: true\n");
        assertThat(run(file)).as(err.toString()).isEqualTo(CheckConfigCommand.VALID);
        assertThat(out.toString()).contains("  p: 3 attempts, wait 500ms ×1.5 with no cap, no total limit; retries codes"
                + " [E_OBJECT_MODIFIED, E_OBJECT_LOCKED]\n");
        assertThat(err.toString()).isEmpty();
    }

    /** A verdict for every file given; the exit code says the worst: 0 valid, 1 invalid, 2 could not be read. */
    @Test
    void everyFileGetsAVerdict_andTheExitCodeSaysValidInvalidOrUnreadable() throws IOException {
        Path good = Files.writeString(dir.resolve("good.yaml"), "locks:\n  breakerRole: boss\n");
        Path bad = Files.writeString(dir.resolve("bad.yaml"), "locks:\n  breakerRole:\n");
        Path missing = dir.resolve("missing.yaml");
        assertThat(run(good, bad)).isEqualTo(CheckConfigCommand.INVALID);
        assertThat(out.toString()).startsWith(good + ": OK\n");
        assertThat(err.toString()).isEqualTo(bad + ": 1 error\n  E_CONFIG_INVALID: " + bad + ":2: locks.breakerRole = null: the key"
                + " has no value; write one, or leave the key out for its default\n");
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        assertThat(run(good, missing, bad)).isEqualTo(CheckConfigCommand.UNREADABLE);
        assertThat(err.toString()).startsWith(missing + ": cannot be read (no such file)\n" + bad + ": 1 error\n");
        assertThat(err.toString()).doesNotContain("Exception").doesNotContain("\tat ");
        err.getBuffer().setLength(0);
        assertThat(run(dir)).isEqualTo(CheckConfigCommand.UNREADABLE);
        assertThat(err.toString()).isEqualTo(dir + ": cannot be read (not a regular file)\n");
    }
}
