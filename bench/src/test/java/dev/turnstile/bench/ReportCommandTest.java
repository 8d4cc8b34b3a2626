package dev.turnstile.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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

    @Test
    void severalDatabases_showEachTableOnce_withEveryDatabasesRowsSideBySide_andEachWholeOutputFolded() throws Exception {
        String postgres = """
                locks benchmark on jdbc:postgresql://127.0.0.1:5432/test: pairs per second

                | cell | SHEDLOCK | TURNSTILE |
                |---|---|---|
                | 1 thread, own lock | 783 | 2,201 |
                | 4 threads, one lock | 948 | 2,035 |

                Hand-over (ms):

                | | p50 | p99 |
                |---|---|---|
                | TURNSTILE | 1.8 | 9.4 |
                """;
        String h2 = """
                locks benchmark on jdbc:h2:file:/tmp/bench;AUTO_SERVER=TRUE: pairs per second

                | cell | SHEDLOCK | TURNSTILE |
                |---|---|---|
                | 1 thread, own lock | 90,000 | 120,000 |
                | 4 threads, one lock | 40,000 | 50,000 |

                Hand-over, another header (ms):

                | | p50 | p99 | samples |
                |---|---|---|---|
                | TURNSTILE | 0.2 | 0.9 | 50 |
                """;
        Path plots = Files.createDirectories(dir.resolve("plots"));
        Map<String, String> outputs = new LinkedHashMap<>();
        outputs.put("PostgreSQL", postgres);
        outputs.put("H2", h2);
        String page = ReportCommand.side(outputs, new ReportCommand.Run("locks", "Cooperative locks", ""), plots, dir);

        assertThat(page).startsWith("""
                locks benchmark: pairs per second:

                | cell | database | SHEDLOCK | TURNSTILE |
                |---|---|---|---|
                | 1 thread, own lock | PostgreSQL | 783 | 2,201 |
                | 1 thread, own lock | H2 | 90,000 | 120,000 |
                | 4 threads, one lock | PostgreSQL | 948 | 2,035 |
                | 4 threads, one lock | H2 | 40,000 | 50,000 |

                ![locks benchmark: pairs per second](plots/locks-1.png)
                """);
        assertThat(plots.resolve("locks-1.png")).isNotEmptyFile();
        assertThat(page).as("the hand-over tables differ in columns: each only in its database's output")
                .doesNotContain("locks-2.png").containsOnlyOnce("| TURNSTILE | 1.8 | 9.4 |");
        assertThat(page).contains("<details><summary>locks on PostgreSQL: the whole output</summary>\n\n" + postgres.strip())
                .contains("<details><summary>locks on H2: the whole output</summary>\n\n" + h2.strip());
    }

    @Test
    void aTableOfTimes_isDrawnByItsPercentiles_andATableOfNothingToDraw_notAtAll() throws Exception {
        Path chart = dir.resolve("times.png");
        assertThat(ReportCommand.chart(List.of("| | p50 | p99 | samples |", "|---|---|---|---|", "| floor | 0.9 | 7.9 | 50 |"),
                1, "Hand-over latency (ms)", chart)).isTrue();
        assertThat(chart).isNotEmptyFile();
        assertThat(ReportCommand.chart(List.of("| | p50 | p99 | samples |", "|---|---|---|---|", "| floor | 0.9 | 7.9 | 50 |"),
                1, "Hand-over latency, a table of rates", dir.resolve("none.png"))).isFalse();
    }

    @Test
    void rowsOfSeveralDatabases_withOneRateColumn_areDrawnWithABarPerDatabase_andWithSeveral_aBarPerColumn() {
        var one = ReportCommand.dataset(List.of("| scenario | database | increments/s | time vs floor |", "|---|---|---|---|",
                "| floor | H2 | 7,775 | 1.00× |", "| floor | PostgreSQL | 2,873 | 1.00× |"), 2, "Uncontended");
        assertThat(one.getRowKeys()).containsExactly("H2", "PostgreSQL");
        assertThat(one.getColumnKeys()).containsExactly("floor");

        var several = ReportCommand.dataset(List.of("| cell | database | SHEDLOCK | TURNSTILE |", "|---|---|---|---|",
                "| 1 thread | H2 | 842 | 1,476 |", "| 1 thread | MariaDB | 795 | 734 |"), 2, "Pairs");
        assertThat(several.getRowKeys()).containsExactly("SHEDLOCK", "TURNSTILE");
        assertThat(several.getColumnKeys()).containsExactly("1 thread · H2", "1 thread · MariaDB");
    }

    @Test
    void whatTheJvmsSpent_isNoRate_soOnlyTheRateIsDrawn() {
        var processes = ReportCommand.dataset(List.of("| column | numbers/s | vs floor | statements/number | CPU ms/number | JIT |",
                "|---|---|---|---|---|---|", "| COMBINING | 4,955 | 2.37× | 0.42 | 0.20 | 94 % |"), 1, "4 processes × 4 threads");
        assertThat(processes.getRowKeys()).containsExactly("numbers/s");
    }
}
