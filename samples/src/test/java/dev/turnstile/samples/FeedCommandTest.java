package dev.turnstile.samples;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class FeedCommandTest {
    @TempDir
    Path dir;

    @Tag("multi-process")
    @Test
    void twoDispatcherProcessesServeTenClients_everyDeliveryChecked() throws IOException {
        Path config = Files.writeString(dir.resolve("turnstile.yaml"),
                "database:\n  url: " + ServedH2File.url("feed") + "\n");
        int exit = new CommandLine(new Main()).execute("feed", "--config", config.toString(),
                "--dispatchers", "2", "--writers", "2", "--edits", "30", "--bursts", "5");
        assertThat(exit).as("exit code 0: every client's queue held exactly what its filter lets through").isZero();
    }

    @Test
    void nonsenseCounts_areRefused() {
        assertThat(new CommandLine(new Main()).execute("feed", "--dispatchers", "0")).isEqualTo(2);
    }
}
