package dev.turnstile.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class ReportCommandTest {
    @TempDir
    Path dir;

    @Test
    void aCellsLeadingNumber_isRead_andRatiosAndDashesAreNot() {
        assertThat(ReportCommand.number("2,201")).isEqualTo(2201.0);
        assertThat(ReportCommand.number("2,201 (783)")).isEqualTo(2201.0);
        assertThat(ReportCommand.number("**973**")).isEqualTo(973.0);
        assertThat(ReportCommand.number("0.57")).isEqualTo(0.57);
        assertThat(ReportCommand.number("1.07×")).isNull();
        assertThat(ReportCommand.number("—")).isNull();
        assertThat(ReportCommand.number("FLOOR")).isNull();
    }

    @Test
    void eachTableWithRates_getsAChartBesideIt_andOneWithoutRatesNone() throws Exception {
        String output = """
                Pairs per second:

                | cell | SHEDLOCK | TURNSTILE |
                |---|---|---|
                | 1 thread, own lock | 783 | 2,201 |
                | 4 threads, one lock | 948 | 2,035 |

                Latency:

                | column | p50 ms | p99 ms |
                |---|---|---|
                | FLOOR | 6.37 | 41.41 |
                """;
        Path plots = Files.createDirectories(dir.resolve("plots"));
        String page = ReportCommand.withCharts(output, new ReportCommand.Run("locks", "Cooperative locks", ""), plots, dir);

        assertThat(page).contains("| 1 thread, own lock | 783 | 2,201 |\n| 4 threads, one lock | 948 | 2,035 |\n\n![Pairs per second](plots/locks-1.png)");
        assertThat(plots.resolve("locks-1.png")).isNotEmptyFile();
        assertThat(page).doesNotContain("locks-2.png");
        assertThat(plots.resolve("locks-2.png")).doesNotExist();
    }
}
