package dev.turnstile.engine.config;

import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.MappingIterator;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.StringNode;
import tools.jackson.dataformat.javaprop.JavaPropsMapper;
import tools.jackson.dataformat.yaml.YAMLFactory;
import tools.jackson.dataformat.yaml.YAMLMapper;
import dev.turnstile.api.EngineRuntimeException;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.events.AliasEvent;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.parser.Parser;
import org.snakeyaml.engine.v2.parser.ParserImpl;
import org.snakeyaml.engine.v2.scanner.StreamReader;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A configuration file read into a tree, refusing what would otherwise hang, crash or be misread:
 * anything but a regular file (a named pipe blocked the open forever), more than {@link #MAX_BYTES}
 * (a 10 MB string took 36 s of CPU to refuse), text that is not UTF-8, nesting deeper than
 * {@link #MAX_DEPTH}, duplicate keys (the last one silently won), a second YAML document (it was
 * ignored), YAML aliases (they were read as their anchor's name) and a key with no value (it
 * fell back to its default unseen). Text values then have {@code ${NAME}} and
 * {@code ${NAME:-default}} replaced from the environment, so that secrets stay out of files; a
 * doubled dollar sign before the brace is the text itself. Every key's line is kept, so that an
 * error about a setting, wherever it is found, names its line.
 */
final class ConfigText {
    static final int MAX_BYTES = 1 << 20;
    static final int MAX_DEPTH = 32;
    /** YAML 1.2, as Jackson 3 reads it: {@code on}, {@code yes} and {@code 0123} are text, not a boolean and octal 83. */
    private static final ObjectMapper YAML = YAMLMapper.builder(YAMLFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build()).build())
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
    private static final JavaPropsMapper PROPERTIES = new JavaPropsMapper();
    private static final Pattern VARIABLE = Pattern.compile("\\$\\$\\{|\\$\\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?}|\\$\\{");

    private ConfigText() {
    }

    /**
     * The file's tree (null when it holds nothing), with environment variables replaced through
     * {@code env}; the line of each of its keys goes to {@code places}.
     */
    static JsonNode read(Path file, UnaryOperator<String> env, Places places) {
        String source = file.toString();
        boolean properties = file.getFileName().toString().endsWith(".properties");
        String text = text(file);
        places.add(source, properties ? propertiesLines(text) : yamlLines(source, text));
        JsonNode root = properties ? properties(source, text) : yaml(source, text);
        return root == null || isNull(root) ? null : substitute(source, "", root, env);
    }

    /** The line of every key and list item, by key path ({@code retry.instances.p.retryCodes[0]}); refuses a key written twice. */
    private static Map<String, Integer> yamlLines(String source, String text) {
        Map<String, Integer> lines = new HashMap<>();
        try (JsonParser parser = YAML.createParser(text)) {
            try {
                for (JsonToken t; (t = parser.nextToken()) != null; ) {
                    if (t == JsonToken.PROPERTY_NAME || (parser.streamReadContext().inArray() && !t.isStructEnd())) {
                        lines.putIfAbsent(path(parser.streamReadContext()), parser.currentTokenLocation().getLineNr());
                    }
                }
            } catch (JacksonException e) {
                String path = path(parser.streamReadContext());
                if (e.getOriginalMessage().startsWith("Duplicate Object property")) {
                    int line = e.getLocation().getLineNr();
                    throw EngineRuntimeException.configInvalid(source, path, lineText(text, line),
                            "the key is set twice (first at line " + lines.get(path) + "); the last one would silently win")
                            .atConfigLine(line);
                }
                throw notYaml(source, text, e);
            }
        }
        return lines;
    }

    private static String path(TokenStreamContext context) {
        StringBuilder path = new StringBuilder();
        for (TokenStreamContext c = context; c != null && !c.inRoot(); c = c.getParent()) {
            if (c.inArray()) {
                path.insert(0, "[" + Math.max(c.getCurrentIndex(), 0) + "]");
            } else if (c.currentName() != null) {
                path.insert(0, (path.isEmpty() || path.charAt(0) == '[' ? "" : ".")).insert(0, c.currentName());
            }
        }
        return path.toString();
    }

    /** YAML's own words and line for what it could not read: snakeyaml's problem, not Jackson's 100-character snippet. */
    private static EngineRuntimeException notYaml(String source, String text, JacksonException e) {
        String problem = e.getOriginalMessage();
        int line = e.getLocation() != null ? e.getLocation().getLineNr() : -1;
        if (e.getCause() instanceof MarkedYamlEngineException marked && marked.getProblem() != null) {
            problem = marked.getProblem();
            line = marked.getProblemMark().map(m -> m.getLine() + 1).orElse(line);
        }
        EngineRuntimeException refusal = EngineRuntimeException.configInvalid(source, "(file)", lineText(text, line),
                "not valid YAML: " + problem.replace("\\t(TAB)", "a tab").strip());
        return line > 0 ? refusal.atConfigLine(line) : refusal;
    }

    private static String lineText(String text, int line) {
        String[] lines = text.split("\n", -1);
        return line >= 1 && line <= lines.length ? lines[line - 1].strip() : "";
    }

    /** A properties file's keys by the line that sets them last (continuation lines are rare in settings and not followed). */
    private static Map<String, Integer> propertiesLines(String text) {
        Map<String, Integer> lines = new HashMap<>();
        String[] all = text.split("\n", -1);
        for (int i = 0; i < all.length; i++) {
            String line = all[i].strip();
            if (!line.isEmpty() && line.charAt(0) != '#' && line.charAt(0) != '!') {
                lines.put(line.split("\\s*[=:\\s]", 2)[0], i + 1); // the last: where a key set twice is refused
            }
        }
        return lines;
    }

    private static String text(Path file) {
        String source = file.toString();
        if (Files.exists(file) && !Files.isRegularFile(file)) {
            throw EngineRuntimeException.configInvalid(source, "(file)", source,
                    "not a regular file (a directory, pipe or device): a configuration file is read whole");
        }
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes(MAX_BYTES + 1);
        } catch (NoSuchFileException e) {
            throw EngineRuntimeException.configInvalid(source, "(file)", source, "cannot be read: no such file");
        } catch (IOException e) {
            throw EngineRuntimeException.configInvalid(source, "(file)", e.toString(), "cannot be read");
        }
        if (bytes.length > MAX_BYTES) {
            throw EngineRuntimeException.configInvalid(source, "(file)", "more than " + MAX_BYTES + " bytes",
                    "larger than 1 MiB: not a configuration file");
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw EngineRuntimeException.configInvalid(source, "(file)", e.toString(), "not UTF-8 text; save the file as UTF-8");
        }
    }

    private static JsonNode yaml(String source, String text) {
        JsonNode first;
        try (MappingIterator<JsonNode> documents = YAML.readerFor(JsonNode.class).readValues(text)) {
            first = documents.hasNextValue() ? documents.nextValue() : null;
            if (documents.hasNextValue()) {
                throw EngineRuntimeException.configInvalid(source, "(file)", "a second document after ---",
                        "one document only: what follows the first would be ignored");
            }
        } catch (JacksonException e) {
            throw notYaml(source, text, e);
        }
        // Valid YAML by now; its events name any alias (the tree does not: it holds the anchor's name).
        LoadSettings yaml = LoadSettings.builder().build();
        for (Parser events = new ParserImpl(yaml, new StreamReader(yaml, text)); events.hasNext(); ) {
            if (events.next() instanceof AliasEvent alias) {
                throw EngineRuntimeException.configInvalid(source, "(file)", "*" + alias.getAlias().getValue() + " at line "
                        + alias.getStartMark().map(m -> m.getLine() + 1).orElse(0), "YAML aliases are not read: write the value out");
            }
        }
        return first;
    }

    /** Key paths and their text (a properties file's form) as a tree; null for none. */
    static JsonNode tree(String source, Map<String, String> settings) {
        Properties read = new Properties();
        settings.forEach((key, value) -> {
            checkDepth(source, key, value);
            read.setProperty(key, value);
        });
        try {
            return read.isEmpty() ? null : PROPERTIES.readPropertiesAs(read, JsonNode.class);
        } catch (IOException | JacksonException | IllegalArgumentException e) {
            throw EngineRuntimeException.configInvalid(source, "(settings)", e.getMessage(), "not a tree of settings");
        }
    }

    private static void checkDepth(String source, String key, Object value) {
        if (key.split("\\.").length > MAX_DEPTH) {
            throw EngineRuntimeException.configInvalid(source, key.substring(0, Math.min(key.length(), 80)) + "…", value,
                    "more than " + MAX_DEPTH + " levels of keys");
        }
    }

    private static JsonNode properties(String source, String text) {
        Properties read = new Properties() {
            @Override
            public synchronized Object put(Object key, Object value) {
                String k = key.toString();
                if (containsKey(key)) {
                    throw EngineRuntimeException.configInvalid(source, k, value,
                            "the key is set twice in the file; the last one would silently win");
                }
                checkDepth(source, k, value);
                return super.put(key, value);
            }
        };
        try {
            read.load(new StringReader(text));
            return read.isEmpty() ? null : PROPERTIES.readPropertiesAs(read, JsonNode.class);
        } catch (IOException | JacksonException | IllegalArgumentException e) {
            throw EngineRuntimeException.configInvalid(source, "(file)", e.getMessage(), "not valid properties");
        }
    }

    private static JsonNode substitute(String source, String path, JsonNode node, UnaryOperator<String> env) {
        if (node instanceof ObjectNode object) {
            for (String key : java.util.List.copyOf(object.propertyNames())) {
                object.set(key, substitute(source, path.isEmpty() ? key : path + "." + key, object.get(key), env));
            }
        } else if (node instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                array.set(i, substitute(source, path + "[" + i + "]", array.get(i), env));
            }
        } else if (isNull(node)) {
            throw noValue(source, path);
        } else if (node.isString() && node.asString().contains("${")) {
            return StringNode.valueOf(expand(source, path, node.asString(), env));
        }
        return node;
    }

    /** YAML's null: no value, or {@code ~} (which Jackson 3 reads as that text; quoted, it is refused too). */
    private static boolean isNull(JsonNode node) {
        return node.isNull() || (node.isString() && node.asString().equals("~"));
    }

    private static EngineRuntimeException noValue(String source, String path) {
        return EngineRuntimeException.configInvalid(source, path, null, "the key has no value; write one, or leave the key out for its default");
    }

    private static String expand(String source, String path, String text, UnaryOperator<String> env) {
        Matcher m = VARIABLE.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String replacement;
            if (m.group().equals("$${")) {
                replacement = "${";
            } else if (m.group(1) == null) {
                throw EngineRuntimeException.configInvalid(source, path, text,
                        "${ without a variable name and }: write ${NAME} or ${NAME:-default}, or $${ for the text ${");
            } else {
                String value = env.apply(m.group(1));
                if (value == null && m.group(2) == null) {
                    throw EngineRuntimeException.configInvalid(source, path, text,
                            "the environment variable " + m.group(1) + " is not set (give a default: ${" + m.group(1) + ":-…})");
                }
                replacement = value != null ? value : m.group(3);
            }
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        return out.toString();
    }
}
