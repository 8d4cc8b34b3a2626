package dev.turnstile.bench;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.data.Range;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.general.DatasetUtils;
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
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;

/**
 * Every benchmark in one bounded run (short cells: minutes in all, not a soak) on one database or
 * several, its tables written to one page with a chart beside each, so the figures of
 * docs/BENCHMARKS.md can be made again with one command. With several databases each table is
 * shown once, its rows for every database side by side (cells × databases), and each database's
 * whole output is kept below it.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Runs every benchmark with short cells on one database or several and writes their tables, and a chart of"
                + " each, to one Markdown page.")
final class ReportCommand implements Callable<Integer> {
    /** A benchmark of the report: its section title and its arguments, {@code %s} for the database. */
    record Run(String name, String title, String args) {
    }

    static final List<Run> RUNS = List.of(
            new Run("objects", "Objects", "objects --db %s --ops 1000 --rounds 3"),
            new Run("locks", "Cooperative locks", "locks --db %s --work --seconds 3 --warm-up 1 --rounds 1"),
            new Run("dispensers", "Dispensers", "dispensers --db %s --threads 1,4,16 --rounds 1 --seconds 2 --processes 4 --process-seconds 5"),
            new Run("treelocks", "Tree locks", "treelocks --db %s --sizes 1000 --threads 1,4,16 --handovers 50 --held 100 --seconds 3"),
            new Run("changes", "Change feed", "changes --db %s --seconds 5"));

    private static final Map<String, String> DATABASE_NAMES = Map.of("h2", "H2", "postgres", "PostgreSQL", "mariadb", "MariaDB",
            "galera", "Galera");

    /** Columns of a table of rates that are no rate: times, ratios, counts, what the JVMs spent (CPU, JIT). */
    private static final Pattern NOT_A_RATE = Pattern.compile(
            "(?i).*(\\bms\\b|µs|vs|×|\\s/\\s|statements|conflicts|lost|calls|failed|\\bjit\\b|\\bcpu\\b|threads|count|samples|delay|saves|deliveries|\\bp\\d+\\b).*");
    /** Columns of a table of times that are drawn: its percentiles. */
    private static final Pattern PERCENTILE = Pattern.compile("(?i).*\\b(p\\d+|max)\\b.*");
    /** A caption of a table of times: "(ms" or "(µs" in it. */
    private static final Pattern TIME_CAPTION = Pattern.compile(".*\\((ms|µs)\\b.*");
    private static final Pattern URL_IN_CAPTION = Pattern.compile("\\s+on jdbc:\\S+?(?=[,:;]?(\\s|$))");

    @Option(names = "--db", defaultValue = "postgres", split = ",",
            description = "h2, postgres, mariadb, or several separated by commas (default ${DEFAULT-VALUE})")
    List<String> databases;

    @Option(names = "--out", defaultValue = "docs/benchmarks-report.md", description = "the page (default ${DEFAULT-VALUE})")
    Path out;

    @Option(names = "--only", split = ",", description = "run only these benchmarks (default: all)")
    List<String> only;

    @Override
    public Integer call() throws Exception {
        System.setProperty("java.awt.headless", "true");
        Path pageDir = out.toAbsolutePath().getParent();
        Path plots = pageDir.resolve("plots");
        Files.createDirectories(plots);
        StringBuilder page = new StringBuilder();
        page.append("# Benchmark report\n\n")
                .append(String.format(Locale.ROOT, "Made by `java -jar bench/target/turnstile-bench.jar report --db %s` on %s: %d cores,"
                                + " Java %s. Short cells, so read the ratios; [BENCHMARKS.md](BENCHMARKS.md) keeps the figures of"
                                + " longer runs.%n%n", String.join(",", databases), LocalDate.now(),
                        Runtime.getRuntime().availableProcessors(), System.getProperty("java.version")));
        int failed = 0;
        for (Run run : RUNS) {
            if (only != null && !only.contains(run.name())) {
                continue;
            }
            Map<String, String> outputs = new LinkedHashMap<>();
            StringBuilder commands = new StringBuilder();
            List<String> took = new ArrayList<>();
            for (String db : databases) {
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
                outputs.put(name(db), captured.toString(StandardCharsets.UTF_8));
                commands.append("java -jar bench/target/turnstile-bench.jar ").append(String.join(" ", args)).append('\n');
                took.add(String.format(Locale.ROOT, "%d s on %s%s", Duration.ofNanos(System.nanoTime() - start).toSeconds(),
                        name(db), exit == 0 ? "" : " (exit code " + exit + ")"));
            }
            page.append("## ").append(run.title()).append("\n\n```bash\n").append(commands).append("```\n\n")
                    .append(run.name()).append(": ").append(String.join(", ", took)).append(".\n\n");
            page.append(outputs.size() == 1 ? withCharts(outputs.values().iterator().next(), run, plots, pageDir)
                    : side(outputs, run, plots, pageDir));
        }
        Files.writeString(out, page);
        System.out.println("wrote " + out);
        return failed == 0 ? 0 : 1;
    }

    private static String name(String db) {
        return DATABASE_NAMES.getOrDefault(db, db);
    }

    /** A table of a benchmark's output: the line before it that says what it is, and its lines. */
    record Table(String caption, List<String> lines) {
        String header() {
            return lines.get(0).strip();
        }

        List<String> rows() {
            return lines.subList(2, lines.size());
        }
    }

    /** The tables of a benchmark's output, in order. */
    static List<Table> tables(String output) {
        List<Table> tables = new ArrayList<>();
        List<String> lines = new ArrayList<>();
        String caption = "";
        for (String line : (output + "\n").split("\n", -1)) {
            if (line.startsWith("|")) {
                lines.add(line);
                continue;
            }
            if (!lines.isEmpty()) {
                tables.add(new Table(caption, List.copyOf(lines)));
                lines.clear();
            }
            if (!line.isBlank()) {
                caption = caption(line);
            }
        }
        return tables;
    }

    /** A line of output as the caption of the table after it: no heading marks, no closing colon. */
    private static String caption(String line) {
        return line.replaceAll("^#+\\s*", "").replaceAll("[:.]\\s*$", "");
    }

    /** The Markdown line showing {@link #chart} of the table, drawn to {@code file}; "" if it had nothing to draw. */
    private static String chartImage(List<String> table, int labelColumns, String caption, Path file, Path pageDir) throws IOException {
        return !chart(table, labelColumns, caption, file) ? ""
                : "\n![" + caption.replace("]", "") + "](" + pageDir.relativize(file).toString().replace('\\', '/') + ")\n";
    }

    /**
     * The outputs of several databases: each table once, with a database column and every
     * database's row beside the others (tables whose columns differ between databases one per
     * database), a chart after each; then each database's whole output, folded.
     */
    static String side(Map<String, String> outputs, Run run, Path plots, Path pageDir) throws IOException {
        StringBuilder page = new StringBuilder();
        Map<String, List<Table>> tables = new LinkedHashMap<>();
        outputs.forEach((db, output) -> tables.put(db, tables(output)));
        List<Table> first = tables.values().iterator().next();
        int charts = 0;
        for (int t = 0; t < first.size(); t++) {
            List<Table> same = new ArrayList<>();
            for (List<Table> of : tables.values()) {
                if (t < of.size() && of.get(t).header().equals(first.get(t).header())) {
                    same.add(of.get(t));
                }
            }
            if (same.size() < tables.size()) {
                continue; // shown in each database's output below
            }
            String caption = URL_IN_CAPTION.matcher(first.get(t).caption()).replaceAll("");
            List<String> lines = new ArrayList<>();
            String[] header = cells(first.get(t).header());
            lines.add("| " + header[0] + " | database | " + String.join(" | ", Arrays.asList(header).subList(1, header.length)) + " |");
            lines.add("|---|---|" + "---|".repeat(header.length - 1));
            // Rows by their first cell, in the order first seen, each database's in the databases' order.
            Map<String, List<String>> byLabel = new LinkedHashMap<>();
            List<String> dbs = List.copyOf(tables.keySet());
            for (int d = 0; d < dbs.size(); d++) {
                for (String row : same.get(d).rows()) {
                    String[] cells = cells(row);
                    byLabel.computeIfAbsent(cells[0], label -> new ArrayList<>()).add("| " + cells[0] + " | " + dbs.get(d) + " | "
                            + String.join(" | ", Arrays.asList(cells).subList(1, cells.length)) + " |");
                }
            }
            byLabel.values().forEach(lines::addAll);
            page.append(caption).append(":\n\n").append(String.join("\n", lines)).append('\n')
                    .append(chartImage(lines, 2, caption, plots.resolve(run.name() + "-" + ++charts + ".png"), pageDir))
                    .append('\n');
        }
        outputs.forEach((db, output) -> page.append("<details><summary>").append(run.name()).append(" on ").append(db)
                .append(": the whole output</summary>\n\n").append(output.strip()).append("\n\n</details>\n\n"));
        return page.toString();
    }

    /** The benchmark's output, each table followed by a chart of it (none if it has nothing to draw). */
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
                page.append(chartImage(table, 1, caption, plots.resolve(run.name() + "-" + ++tables + ".png"), pageDir));
                table.clear();
            }
            if (!line.isBlank()) {
                caption = caption(line);
            }
            page.append(line).append('\n');
        }
        return page.toString().stripTrailing() + "\n\n";
    }

    /**
     * A bar chart of the table, a bar group per row (named by its first {@code labelColumns}
     * cells): of its percentile columns if the caption says the table is of times "(ms" or "(µs",
     * else of its rate columns — with a bar per database where rows of several databases have
     * one such column — on a logarithmic axis where the values span more than 30×. False if there
     * is nothing to draw.
     */
    static boolean chart(List<String> table, int labelColumns, String caption, Path file) throws IOException {
        DefaultCategoryDataset data = dataset(table, labelColumns, caption);
        if (data.getRowCount() == 0) {
            return false;
        }
        Range values = DatasetUtils.findRangeBounds(data);
        boolean times = TIME_CAPTION.matcher(caption).matches();
        String[] header = cells(table.get(0));
        String unit = !times ? "per second" : caption.contains("(µs") ? "µs" : "ms";
        // Horizontal bars: the rows' names (scenarios, cells) are long and stay whole on the left.
        JFreeChart chart = ChartFactory.createBarChart(caption.length() > 90 ? caption.substring(0, 87) + "…" : caption,
                header[0], unit, data, PlotOrientation.HORIZONTAL, true, false, false);
        CategoryPlot plot = chart.getCategoryPlot();
        plot.getDomainAxis().setMaximumCategoryLabelWidthRatio(0.45f);
        plot.setBackgroundPaint(java.awt.Color.WHITE);
        plot.setRangeGridlinePaint(java.awt.Color.GRAY);
        if (values.getUpperBound() / values.getLowerBound() > 30) {
            plot.setRangeAxis(new LogAxis(unit + " (logarithmic)"));
            ((BarRenderer) plot.getRenderer()).setBase(values.getLowerBound() / 2);
        }
        ChartUtils.saveChartAsPNG(file.toFile(), chart, 900, 160 + 28 * data.getColumnCount() * Math.max(1, data.getRowCount()));
        return true;
    }

    /** What {@link #chart} draws: a value per drawn column (or database) and row; empty if nothing is drawn. */
    static DefaultCategoryDataset dataset(List<String> table, int labelColumns, String caption) {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        if (table.size() < 3) {
            return data;
        }
        boolean times = TIME_CAPTION.matcher(caption).matches();
        String[] header = cells(table.get(0));
        List<Integer> drawn = new ArrayList<>();
        for (int c = labelColumns; c < header.length; c++) {
            if (times ? PERCENTILE.matcher(header[c]).matches() : !NOT_A_RATE.matcher(header[c]).matches()) {
                drawn.add(c);
            }
        }
        // One column drawn for rows of several databases: a bar per database (the series), grouped by row.
        boolean byDatabase = labelColumns == 2 && drawn.size() == 1;
        for (String row : table.subList(2, table.size())) {
            String[] cells = cells(row);
            String label = byDatabase ? cells[0] : String.join(" · ", Arrays.asList(cells).subList(0, Math.min(labelColumns, cells.length)));
            for (int c : drawn) {
                Double value = c < cells.length ? number(cells[c]) : null;
                if (value != null && value > 0) {
                    data.addValue(value, byDatabase ? cells[1] : header[c], label);
                }
            }
        }
        return data;
    }

    private static String[] cells(String row) {
        String inner = row.strip();
        inner = inner.substring(1, inner.endsWith("|") ? inner.length() - 1 : inner.length());
        return Arrays.stream(inner.split("\\|", -1)).map(String::strip).toArray(String[]::new);
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
