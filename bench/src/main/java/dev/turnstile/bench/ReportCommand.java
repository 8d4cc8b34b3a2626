package dev.turnstile.bench;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.data.category.DefaultCategoryDataset;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;

/**
 * Every benchmark in one bounded run (short cells: minutes in all, not a soak), its tables written
 * to one page with a bar chart of each table's rates beside it, so the figures of
 * docs/BENCHMARKS.md can be made again with one command.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Runs every benchmark with short cells on one database and writes their tables, and a chart of each"
                + " table's rates, to one Markdown page.")
final class ReportCommand implements Callable<Integer> {
    /** A benchmark of the report: its section title and its arguments, {@code %s} for the database. */
    record Run(String name, String title, String args) {
    }

    static final List<Run> RUNS = List.of(
            new Run("objects", "Objects", "objects --db %s --ops 1000 --rounds 3"),
            new Run("locks", "Cooperative locks", "locks --db %s --seconds 3 --warm-up 3 --rounds 1"),
            new Run("dispensers", "Dispensers", "dispensers --db %s --threads 1,4,16 --rounds 1 --seconds 2 --processes 4 --process-seconds 5"),
            new Run("treelocks", "Tree locks", "treelocks --db %s --sizes 1000 --threads 1,4,16 --handovers 50 --held 100 --seconds 3"),
            new Run("changes", "Change feed", "changes --db %s --seconds 5"));

    /** Columns that are no rate: times, ratios, counts. */
    private static final Pattern NOT_A_RATE = Pattern.compile("(?i).*(\\bms\\b|µs|vs|×|statements|conflicts|lost|calls|failed|threads|count).*");

    @Option(names = "--db", defaultValue = "postgres", description = "h2, postgres or mariadb (default ${DEFAULT-VALUE})")
    String db;

    @Option(names = "--out", defaultValue = "docs/benchmarks-report.md", description = "the page (default ${DEFAULT-VALUE})")
    Path out;

    @Option(names = "--only", split = ",", description = "run only these benchmarks (default: all)")
    List<String> only;

    @Override
    public Integer call() throws Exception {
        System.setProperty("java.awt.headless", "true");
        Path plots = out.toAbsolutePath().getParent().resolve("plots");
        Files.createDirectories(plots);
        StringBuilder page = new StringBuilder();
        page.append("# Benchmark report\n\n")
                .append(String.format(Locale.ROOT, "Made by `java -jar bench/target/turnstile-bench.jar report --db %s` on %s: %d cores, Java %s."
                                + " Short cells, so read the ratios; [BENCHMARKS.md](BENCHMARKS.md) keeps the figures of longer runs.%n%n",
                        db, LocalDate.now(), Runtime.getRuntime().availableProcessors(), System.getProperty("java.version")));
        int failed = 0;
        for (Run run : RUNS) {
            if (only != null && !only.contains(run.name())) {
                continue;
            }
            String[] args = String.format(Locale.ROOT, run.args(), db).split(" ");
            long start = System.nanoTime();
            ByteArrayOutputStream captured = new ByteArrayOutputStream();
            PrintStream console = System.out;
            int exit;
            System.setOut(new PrintStream(new Tee(console, captured), true, StandardCharsets.UTF_8));
            try {
                exit = new CommandLine(new Bench()).execute(args);
            } finally {
                System.setOut(console);
            }
            failed += exit == 0 ? 0 : 1;
            page.append("## ").append(run.title()).append("\n\n```bash\njava -jar bench/target/turnstile-bench.jar ")
                    .append(String.join(" ", args)).append("\n```\n\n")
                    .append(String.format(Locale.ROOT, "%s in %d s%s.%n%n", run.name(),
                            Duration.ofNanos(System.nanoTime() - start).toSeconds(), exit == 0 ? "" : ", exit code " + exit));
            page.append(withCharts(captured.toString(StandardCharsets.UTF_8), run, plots, out.toAbsolutePath().getParent()));
        }
        Files.writeString(out, page);
        System.out.println("wrote " + out);
        return failed == 0 ? 0 : 1;
    }

    /** The benchmark's output, each table followed by a chart of its rate columns (none if it has none). */
    static String withCharts(String output, Run run, Path plots, Path pageDir) throws IOException {
        StringBuilder page = new StringBuilder();
        List<String> table = new ArrayList<>();
        String caption = run.title();
        int tables = 0;
        for (String line : (output + "\n").split("\n", -1)) {
            if (line.startsWith("|")) {
                table.add(line);
                page.append(line).append('\n');
                continue;
            }
            if (!table.isEmpty()) {
                Path chart = plots.resolve(run.name() + "-" + ++tables + ".png");
                if (chart(table, caption, chart)) {
                    page.append("\n![").append(caption.replace("]", "")).append("](")
                            .append(pageDir.relativize(chart).toString().replace('\\', '/')).append(")\n");
                }
                table.clear();
            }
            if (!line.isBlank()) {
                caption = line.replaceAll("^#+\\s*", "").replaceAll("[:.]\\s*$", "");
            }
            page.append(line).append('\n');
        }
        return page.toString().stripTrailing() + "\n\n";
    }

    /** A grouped bar chart of the table's rate columns by its first column; false if it has none. */
    static boolean chart(List<String> table, String caption, Path file) throws IOException {
        if (table.size() < 3) {
            return false;
        }
        String[] header = cells(table.get(0));
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        for (String row : table.subList(2, table.size())) {
            String[] cells = cells(row);
            for (int c = 1; c < Math.min(header.length, cells.length); c++) {
                Double value = number(cells[c]);
                if (value != null && !NOT_A_RATE.matcher(header[c]).matches()) {
                    data.addValue(value, header[c], cells[0]);
                }
            }
        }
        if (data.getRowCount() == 0) {
            return false;
        }
        // Horizontal bars: the rows' names (scenarios, cells) are long and stay whole on the left.
        JFreeChart chart = ChartFactory.createBarChart(caption.length() > 90 ? caption.substring(0, 87) + "…" : caption,
                header[0], "per second", data, PlotOrientation.HORIZONTAL, true, false, false);
        chart.getCategoryPlot().setBackgroundPaint(java.awt.Color.WHITE);
        chart.getCategoryPlot().setRangeGridlinePaint(java.awt.Color.GRAY);
        ChartUtils.saveChartAsPNG(file.toFile(), chart, 900, 160 + 28 * data.getColumnCount() * Math.max(1, data.getRowCount()));
        return true;
    }

    private static String[] cells(String row) {
        String inner = row.strip();
        inner = inner.substring(1, inner.endsWith("|") ? inner.length() - 1 : inner.length());
        return java.util.Arrays.stream(inner.split("\\|", -1)).map(String::strip).toArray(String[]::new);
    }

    /** A cell's leading number ("1,234", "1,234 (0.5×)", "**973**"), or null. */
    static Double number(String cell) {
        String s = cell.replace("*", "").replace(",", "").strip();
        int end = 0;
        while (end < s.length() && (Character.isDigit(s.charAt(end)) || s.charAt(end) == '.')) {
            end++;
        }
        if (end == 0 || (end < s.length() && !Character.isWhitespace(s.charAt(end)))) {
            return null;
        }
        try {
            return Double.parseDouble(s.substring(0, end));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Writes to both: the console keeps showing the run's progress while the page collects it. */
    private static final class Tee extends OutputStream {
        private final OutputStream a;
        private final OutputStream b;

        Tee(OutputStream a, OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public void write(int x) throws IOException {
            a.write(x);
            b.write(x);
        }

        @Override
        public void write(byte[] bytes, int off, int len) throws IOException {
            a.write(bytes, off, len);
            b.write(bytes, off, len);
        }

        @Override
        public void flush() throws IOException {
            a.flush();
            b.flush();
        }
    }
}
