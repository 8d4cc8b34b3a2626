package dev.turnstile.samples;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class LocksCommandTest {
    @TempDir
    Path dir;

    @Tag("multi-process")
    @Test
    void twoProcessesIncrementingUnderTheLock_endOnTheExactCount() throws IOException {
        Path config = Files.writeString(dir.resolve("turnstile.yaml"),
                "database:\n  url: jdbc:h2:file:" + dir.resolve("db") + ";AUTO_SERVER=TRUE;LOCK_TIMEOUT=10000\n");
        int exit = new CommandLine(new Main()).execute("locks", "--config", config.toString(),
                "--processes", "2", "--workers", "3", "--increments", "10");
        assertThat(exit).as("exit code 0 means the final counter equals 2 × 3 × 10").isZero();
    }

    @Test
    void nonsenseCounts_areRefused() {
        assertThat(new CommandLine(new Main()).execute("locks", "--workers", "0")).isEqualTo(2);
    }
}
