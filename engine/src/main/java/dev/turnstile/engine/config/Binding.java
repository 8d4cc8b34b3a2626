package dev.turnstile.engine.config;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.retry.RetryPolicyConfig;
import dev.turnstile.engine.retry.FailureMatcher;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.TreeNode;
import tools.jackson.core.exc.InputCoercionException;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.annotation.JsonDeserialize;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;
import tools.jackson.databind.introspect.DefaultAccessorNamingStrategy;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;
import tools.jackson.databind.type.LogicalType;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Settings trees bound by Jackson databind: a section to its record, a dispenser series or a retry
 * policy straight into the API's builder (whose setters are named by the keys, so each builder's
 * range checks stay the one place of its rules). Jackson refuses an unknown key, a value of the
 * wrong kind and a key with no value; {@link #bind} turns its refusal, or a builder's, into
 * {@code E_CONFIG_INVALID} naming the file, the key path and the value as written.
 */
final class Binding {
    /** Builder setters have no prefix ({@code maxAttempts(int)}); text keys take text only; durations are operators' ({@code 10s}). */
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .accessorNaming(new DefaultAccessorNamingStrategy.Provider().withSetterPrefix(""))
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_ENUMS)
            .withCoercionConfig(LogicalType.Textual, c -> c.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Float, CoercionAction.Fail).setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
            .withCoercionConfig(LogicalType.Boolean, c -> c.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail))
            .withCoercionConfig(LogicalType.Integer, c -> c.setCoercion(CoercionInputShape.Float, CoercionAction.Fail))
            .addModule(new SimpleModule().addDeserializer(Duration.class, new DurationText()))
            .addMixIn(RetryPolicyConfig.Builder.class, PolicyKeys.class)
            .build();

    static final String DURATION = "must be a duration such as 500ms, 10s, 1m or PT10S";

    private Binding() {
    }

    /**
     * {@code node}, the settings at {@code prefix} of {@code source}, bound into {@code target}: a
     * record's class, or a builder to set. {@code alsoKnown}: keys read elsewhere, named with the
     * known ones when a key is unknown.
     */
    @SuppressWarnings("unchecked")
    static <T> T bind(String source, String prefix, JsonNode node, Object target, Set<String> alsoKnown) {
        try {
            // As a TreeNode: treeToValue(JsonNode, Class) is Jackson 3.1's; Spring Boot 4.0 hosts have 3.0.
            return target instanceof Class<?> type ? MAPPER.treeToValue((TreeNode) node, (Class<T>) type)
                    : MAPPER.readerForUpdating(target).readValue(node);
        } catch (JacksonException | EngineRuntimeException | Refused e) {
            throw refusal(source, prefix, node, e, alsoKnown);
        }
    }

    private static EngineRuntimeException refusal(String source, String prefix, JsonNode node, RuntimeException e, Set<String> alsoKnown) {
        List<String> keys = new ArrayList<>();
        if (e instanceof DatabindException d) {
            d.getPath().forEach(ref -> keys.add(ref.getPropertyName() != null ? ref.getPropertyName() : "[" + ref.getIndex() + "]"));
        }
        JsonNode at = node;
        StringBuilder path = new StringBuilder(prefix.endsWith(".") ? prefix.substring(0, prefix.length() - 1) : prefix);
        for (String key : keys) {
            at = at == null ? null : key.startsWith("[") ? at.get(Integer.parseInt(key.substring(1, key.length() - 1))) : at.get(key);
            path.append(key.startsWith("[") || path.isEmpty() ? "" : ".").append(key);
        }
        String where = path.isEmpty() ? "(root)" : path.toString();
        Object written = at == null ? null : shown(at);
        Throwable cause = e;
        while (cause.getCause() != null && !(cause instanceof EngineRuntimeException) && !(cause instanceof Refused)) {
            cause = cause.getCause();
        }
        if (cause instanceof Refused r) {
            return EngineRuntimeException.configInvalid(source, where, r.value, r.rule);
        }
        if (cause instanceof EngineRuntimeException bad) {
            // The builders hold every range: theirs is the rule, reported against the file and key.
            return Refusals.atKey(bad, source, where, written);
        }
        if (e instanceof UnrecognizedPropertyException unknown) {
            Set<String> known = new TreeSet<>(alsoKnown);
            unknown.getKnownPropertyIds().forEach(id -> known.add(id.toString()));
            return EngineRuntimeException.configInvalid(source, where, written, "unknown key; known keys here are " + known);
        }
        Class<?> type = e instanceof MismatchedInputException m && m.getTargetType() != null ? m.getTargetType()
                : e instanceof InputCoercionException c && c.getTargetType() != null ? c.getTargetType() : null;
        return EngineRuntimeException.configInvalid(source, where, written, type != null ? ruleFor(type, at)
                : "cannot be read: " + (e instanceof JacksonException j ? j.getOriginalMessage() : e.getMessage()));
    }

    /** What a value of {@code type} must be, said for an operator. */
    private static String ruleFor(Class<?> type, JsonNode written) {
        if (type == String.class) {
            return written != null && (written.isNumber() || written.isBoolean()) ? "must be text, and YAML reads this unquoted value as "
                    + (written.isBoolean() ? "the boolean " : "the number ") + written.asString() + ": put it in quotes" : "must be a text value";
        }
        if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
            return "must be an integer";
        }
        if (type == boolean.class || type == Boolean.class) {
            return "must be true or false";
        }
        if (type == double.class || type == Double.class) {
            return "must be a number";
        }
        if (type == Duration.class) {
            return DURATION;
        }
        if (type.isEnum()) {
            return "must be one of " + Arrays.toString(type.getEnumConstants());
        }
        if (Collection.class.isAssignableFrom(type)) {
            return "must be a list";
        }
        return "must be a mapping of keys";
    }

    /** A value as an error shows it: a scalar's text, a list's or mapping's JSON. */
    static String shown(JsonNode node) {
        return node.isValueNode() ? node.asString() : node.toString();
    }

    /** A value refused by one of these readers: what was written and the rule. */
    private static final class Refused extends RuntimeException {
        private final transient Object value;
        private final String rule;

        Refused(Object value, String rule) {
            super(rule, null, false, false);
            this.value = value;
            this.rule = rule;
        }
    }

    /** {@code 500ms}, {@code 10s}, {@code 1m}, {@code PT10S}: a unit is needed, so a number is refused. */
    static final class DurationText extends ValueDeserializer<Duration> {
        @Override
        public Duration deserialize(JsonParser p, DeserializationContext ctxt) {
            Duration d = p.currentToken().isScalarValue() ? Durations.parse(p.getString()) : null;
            if (d == null || !p.currentToken().equals(tools.jackson.core.JsonToken.VALUE_STRING)) {
                throw new Refused(p.currentToken().isScalarValue() ? p.getString() : p.currentToken().toString(), DURATION);
            }
            return d;
        }
    }

    /** A YAML list, or the comma-separated text a {@code .properties} file has. */
    private static List<String> items(JsonParser p, DeserializationContext ctxt) {
        JsonNode node = ctxt.readTree(p);
        List<String> items = new ArrayList<>();
        if (node.isArray()) {
            node.forEach(item -> items.add(item.asString().trim()));
        } else if (node.isValueNode()) {
            Arrays.stream(node.asString().split(",")).map(String::trim).filter(s -> !s.isEmpty()).forEach(items::add);
        } else {
            throw new Refused(node.toString(), "must be a list");
        }
        return items;
    }

    /** Exception classes, checked here so that a bad name is reported against the file that has it. */
    static final class ClassNames extends ValueDeserializer<Set<String>> {
        @Override
        public Set<String> deserialize(JsonParser p, DeserializationContext ctxt) {
            Set<String> names = new LinkedHashSet<>(items(p, ctxt));
            for (String name : names) {
                String refusal = FailureMatcher.refusalOf(name);
                if (refusal != null) {
                    throw new Refused(name, refusal);
                }
            }
            return names;
        }
    }

    static final class Codes extends ValueDeserializer<Set<ExceptionCode>> {
        @Override
        public Set<ExceptionCode> deserialize(JsonParser p, DeserializationContext ctxt) {
            Set<ExceptionCode> codes = EnumSet.noneOf(ExceptionCode.class);
            for (String name : items(p, ctxt)) {
                try {
                    codes.add(ExceptionCode.valueOf(name));
                } catch (IllegalArgumentException e) {
                    throw new Refused(name, "not an ExceptionCode; known codes are " + Arrays.toString(ExceptionCode.values()));
                }
            }
            return codes;
        }
    }

    /** Milliseconds, as the edit-lock paper writes them, or a duration. */
    static final class MillisOrDuration extends ValueDeserializer<Duration> {
        @Override
        public Duration deserialize(JsonParser p, DeserializationContext ctxt) {
            return p.currentToken() == tools.jackson.core.JsonToken.VALUE_NUMBER_INT ? Duration.ofMillis(p.getLongValue())
                    : new DurationText().deserialize(p, ctxt);
        }
    }

    /** true, false, or the paper's 1 and 0. */
    static final class Flag extends ValueDeserializer<Boolean> {
        @Override
        public Boolean deserialize(JsonParser p, DeserializationContext ctxt) {
            String t = p.currentToken().isScalarValue() ? p.getString().trim() : p.currentToken().toString();
            return switch (t) {
                case "true", "1" -> true;
                case "false", "0" -> false;
                default -> throw new Refused(t, "must be true, false, 1 or 0");
            };
        }
    }

    /** The retry policy keys whose values are lists: a YAML list or comma-separated text. */
    private abstract static class PolicyKeys {
        @JsonDeserialize(using = ClassNames.class)
        abstract RetryPolicyConfig.Builder retryExceptions(Set<String> classNames);

        @JsonDeserialize(using = ClassNames.class)
        abstract RetryPolicyConfig.Builder ignoreExceptions(Set<String> classNames);

        @JsonDeserialize(using = Codes.class)
        abstract RetryPolicyConfig.Builder retryCodes(Set<ExceptionCode> codes);

        @JsonDeserialize(using = Codes.class)
        abstract RetryPolicyConfig.Builder ignoreCodes(Set<ExceptionCode> codes);
    }

    /** The map's entries as the file has them (a mapping of names). */
    static Map<String, JsonNode> entries(String source, String path, JsonNode node) {
        if (node == null) {
            return Map.of();
        }
        if (!node.isObject()) {
            throw EngineRuntimeException.configInvalid(source, path, shown(node), "must be a mapping of names");
        }
        Map<String, JsonNode> entries = new java.util.LinkedHashMap<>();
        node.properties().forEach(e -> entries.put(e.getKey(), e.getValue()));
        return entries;
    }
}
