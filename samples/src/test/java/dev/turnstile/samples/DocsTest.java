package dev.turnstile.samples;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README and the guides in docs/ show only code that compiles and runs, and link only to what
 * exists. Every {@code ```java} block must follow a {@code <!-- snippet: NAME -->} line and equal
 * the region {@code // region NAME} of one of {@link #REGION_SOURCES} (run by their tests); every
 * relative link must name a file of the repository and, after {@code #}, a heading of that page.
 */
class DocsTest {
    private static final Path ROOT = Path.of("..");
    private static final List<Path> REGION_SOURCES = List.of(
            Path.of("src/test/java/dev/turnstile/samples/ReadmeExamplesTest.java"),
            ROOT.resolve("samples/spring-boot/src/main/java/dev/turnstile/samples/boot/OrderService.java"),
            ROOT.resolve("micrometer/src/test/java/dev/turnstile/micrometer/TurnstileMetricsTest.java"));
    /** Investigations keep the code they ran as it was; nothing there claims to compile today. */
    private static final Set<String> HISTORY = Set.of("benchmarks-history.md");
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

    @Test
    void everyJavaBlock_isATestedRegion() throws IOException {
        Map<String, String> regions = new HashMap<>();
        for (Path source : REGION_SOURCES) {
            regions.putAll(regions(Files.readAllLines(source)));
        }
        int checked = 0;
        for (Path page : pages()) {
            if (HISTORY.contains(page.getFileName().toString())) {
                continue;
            }
            for (Map.Entry<String, String> snippet : snippets(page).entrySet()) {
                String name = snippet.getKey();
                assertThat(regions).as("%s: a region for snippet %s in %s", page, name, REGION_SOURCES).containsKey(name);
                assertThat(snippet.getValue()).as("%s: snippet %s", page, name).isEqualTo(regions.get(name));
                checked++;
            }
        }
        assertThat(checked).as("snippets checked").isGreaterThanOrEqualTo(10);
    }

    @Test
    void everyRelativeLink_leadsToAFileAndHeadingThatExist() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path page : pages()) {
            List<String> lines = Files.readAllLines(page);
            boolean inCode = false;
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).startsWith("```")) {
                    inCode = !inCode;
                }
                Matcher m = LINK.matcher(lines.get(i));
                while (!inCode && m.find()) {
                    String target = m.group(1);
                    if (target.matches("^[a-z]+:.*")) {
                        continue; // https:, mailto: — outside the repository
                    }
                    String file = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
                    Path linked = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                    String where = page + ":" + (i + 1) + " -> " + target;
                    if (!Files.exists(linked)) {
                        broken.add(where + ": no such file");
                    } else if (target.contains("#") && linked.toString().endsWith(".md")
                            && !anchors(linked).contains(target.substring(target.indexOf('#') + 1))) {
                        broken.add(where + ": no such heading (" + anchors(linked) + ")");
                    }
                }
            }
        }
        assertThat(broken).as("broken links").isEmpty();
    }

    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("CHANGES.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** GitHub's anchors: the heading in lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
    static Set<String> anchors(Path page) throws IOException {
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean inCode = false;
        for (String line : Files.readAllLines(page)) {
            if (line.startsWith("```")) {
                inCode = !inCode;
            }
            if (!inCode && line.startsWith("#")) {
                String slug = line.replaceFirst("^#+\\s*", "").toLowerCase(Locale.ROOT)
                        .replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
                int n = seen.merge(slug, 1, Integer::sum);
                anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
            }
        }
        return anchors;
    }

    /** The page's snippets by name; one shown twice must read the same both times. */
    private static Map<String, String> snippets(Path page) throws IOException {
        List<String> lines = Files.readAllLines(page);
        Map<String, String> snippets = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).startsWith("```java")) {
                continue;
            }
            String marker = i == 0 ? "" : lines.get(i - 1).trim();
            if (!marker.startsWith("<!-- snippet:") || !marker.endsWith("-->")) {
                throw new AssertionError(page + ":" + (i + 1) + ": a ```java block without a <!-- snippet: NAME --> line before it");
            }
            String name = marker.substring("<!-- snippet:".length(), marker.length() - 3).trim();
            List<String> body = new ArrayList<>();
            int j = i + 1;
            for (; !lines.get(j).startsWith("```"); j++) {
                body.add(lines.get(j));
            }
            String earlier = snippets.putIfAbsent(name, dedent(body));
            if (earlier != null) {
                assertThat(dedent(body)).as("%s: the snippet %s shown twice, differently", page, name).isEqualTo(earlier);
            }
            i = j;
        }
        return snippets;
    }

    private static Map<String, String> regions(List<String> lines) {
        Map<String, String> regions = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            if (line.startsWith("// region ")) {
                String name = line.substring("// region ".length()).trim();
                List<String> body = new ArrayList<>();
                int j = i + 1;
                for (; !lines.get(j).trim().equals("// endregion"); j++) {
                    body.add(lines.get(j));
                }
                regions.put(name, dedent(body));
                i = j;
            }
        }
        return regions;
    }

    private static String dedent(List<String> body) {
        int indent = body.stream().filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        StringBuilder out = new StringBuilder();
        for (String l : body) {
            out.append(l.isBlank() ? "" : l.substring(indent).stripTrailing()).append('\n');
        }
        return out.toString();
    }
}
