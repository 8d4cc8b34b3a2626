package dev.turnstile.samples;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every README code block marked {@code <!-- snippet: NAME -->} must equal the region
 * {@code // region NAME} of {@link ReadmeExamplesTest}, so the README shows code that compiles and runs.
 */
class ReadmeSnippetsTest {
    private static final Path README = Path.of("..", "README.md");
    private static final Path EXAMPLES = Path.of("src", "test", "java", "dev", "turnstile", "samples", "ReadmeExamplesTest.java");

    @Test
    void readmeSnippetsMatchTheTestedRegions() throws IOException {
        Map<String, String> snippets = readmeSnippets(Files.readAllLines(README));
        Map<String, String> regions = regions(Files.readAllLines(EXAMPLES));
        assertThat(snippets).as("README snippets").isNotEmpty();
        for (Map.Entry<String, String> snippet : snippets.entrySet()) {
            assertThat(regions).as("a region for README snippet " + snippet.getKey()).containsKey(snippet.getKey());
            assertThat(snippet.getValue()).as("README snippet " + snippet.getKey())
                    .isEqualTo(regions.get(snippet.getKey()));
        }
    }

    private static Map<String, String> readmeSnippets(List<String> lines) {
        Map<String, String> snippets = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            if (line.startsWith("<!-- snippet:") && line.endsWith("-->")) {
                String name = line.substring("<!-- snippet:".length(), line.length() - 3).trim();
                int start = i + 1;
                if (!lines.get(start).startsWith("```java")) {
                    throw new AssertionError("snippet " + name + " is not followed by a ```java block");
                }
                List<String> body = new ArrayList<>();
                int j = start + 1;
                for (; !lines.get(j).startsWith("```"); j++) {
                    body.add(lines.get(j));
                }
                snippets.put(name, dedent(body));
                i = j;
            }
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
