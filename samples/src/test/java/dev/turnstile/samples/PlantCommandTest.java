package dev.turnstile.samples;

import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreePath;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class PlantCommandTest {
    @TempDir
    Path dir;

    @Tag("multi-process")
    @Test
    void twoProcessesRunningTheMix_passTheOverlapCheck() throws IOException {
        Path config = Files.writeString(dir.resolve("turnstile.yaml"),
                "database:\n  url: " + ServedH2File.url("plant") + "\n");
        int exit = new CommandLine(new Main()).execute("plant", "--config", config.toString(),
                "--processes", "2", "--threads", "3", "--rounds", "15");
        assertThat(exit).as("exit code 0: no conflicting overlap, some independent overlap, all 90 operations logged").isZero();
    }

    @Test
    void theCheckCatchesConflictingOperationsThatOverlapped() {
        TreePath site = TreePath.root("site", "S");
        PlantCommand plant = new PlantCommand();
        plant.processes = 1;
        plant.threads = 2;
        plant.rounds = 1;
        var upgrade = new PlantCommand.Operation(0, 100, "1-0", "upgrade", TreeLockRequest.exclusive(site.child("workshop", "W0")));
        var bench = new PlantCommand.Operation(50, 150, "1-1", "operation",
                TreeLockRequest.exclusive(site.child("workshop", "W0").child("bench", "B1")));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThat(plant.check(List.of(upgrade, bench), 1, new PrintStream(out, true, StandardCharsets.UTF_8))).isFalse();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("VIOLATION: upgrade [X site:S/workshop:W0] by 1-0 overlapped operation");
    }

    @Test
    void requestsReadBackFromTheLog() {
        TreeLockRequest r = TreeLockRequest.builder().exclusive(java.util.Set.of(TreePath.parse("site:S/workshop:W1")))
                .shared(java.util.Set.of(TreePath.parse("site:S/workshop:W2/bench:B0"))).build();
        assertThat(PlantCommand.parseRequest(r.toString())).isEqualTo(r);
    }

    @Test
    void nonsenseSizes_areRefused() {
        assertThat(new CommandLine(new Main()).execute("plant", "--workshops", "1")).isEqualTo(2);
    }
}
