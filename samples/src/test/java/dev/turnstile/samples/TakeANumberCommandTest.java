package dev.turnstile.samples;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class TakeANumberCommandTest {
    @TempDir
    Path dir;

    @Tag("multi-process")
    @ParameterizedTest
    @ValueSource(strings = {"COMBINING", "FIRST_WRITER_WINS"})
    void twoProcessesTakeNumbers_theCommandChecksNoDuplicateNoGap(String strategy) throws IOException {
        Path config = Files.writeString(dir.resolve("turnstile.yaml"),
                "database:\n  url: " + ServedH2File.url("take-a-number") + "\n");
        int exit = new CommandLine(new Main()).execute("take-a-number", "--config", config.toString(), "--dispenser", "case",
                "--processes", "2", "--workers", "4", "--count", "2000", "--strategy", strategy);
        assertThat(exit).as("exit code 0: all 2000 numbers taken once, none missing").isZero();
    }
}
