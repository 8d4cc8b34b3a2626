package dev.turnstile.engine.changes;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.changes.Change;
import dev.turnstile.api.changes.ChangeFilter;
import dev.turnstile.api.changes.ChangeKind;
import dev.turnstile.api.changes.PropertyChange;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Changes to and from JSON text. A value keeps its Java type through a one-letter tag (s, i, l, d,
 * b, t for an instant, u for a UUID), so a change reads back exactly even after its class changed.
 */
final class ChangeCodec {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ChangeCodec() {
    }

    /** The properties whose values differ between {@code before} and {@code after}, with both values. */
    static String encodeDifferences(Map<String, Object> before, Map<String, Object> after) {
        ObjectNode out = JSON.createObjectNode();
        Set<String> names = new TreeSet<>(before.keySet());
        names.addAll(after.keySet());
        for (String name : names) {
            Object o = before.get(name);
            Object n = after.get(name);
            if (o == null ? n != null : !o.equals(n)) {
                ObjectNode change = out.putObject(name);
                put(change, "o", o);
                put(change, "n", n);
            }
        }
        return out.toString();
    }

    static Map<String, PropertyChange> decodeProperties(String json) {
        Map<String, PropertyChange> out = new LinkedHashMap<>();
        read(json).properties().forEach(e -> out.put(e.getKey(), new PropertyChange(value(e.getValue().get("o")),
                value(e.getValue().get("n")))));
        return out;
    }

    static String encodeChange(Change c) {
        ObjectNode out = JSON.createObjectNode();
        ArrayNode ids = out.putArray("ids");
        c.changeIds().forEach(ids::add);
        out.put("position", c.position());
        out.put("object", c.objectId().toString());
        out.put("class", c.className());
        out.put("user", c.user());
        out.put("time", c.time().toString());
        out.put("kind", c.kind().name());
        if (c.usnBefore() != null) {
            out.put("usnBefore", c.usnBefore());
        }
        if (c.usnAfter() != null) {
            out.put("usnAfter", c.usnAfter());
        }
        ObjectNode props = out.putObject("properties");
        c.properties().forEach((name, change) -> {
            ObjectNode p = props.putObject(name);
            put(p, "o", change.oldValue());
            put(p, "n", change.newValue());
        });
        return out.toString();
    }

    static Change decodeChange(String json) {
        JsonNode in = read(json);
        List<Long> ids = new ArrayList<>();
        in.get("ids").forEach(id -> ids.add(id.longValue()));
        return new Change(ids, in.get("position").longValue(), UUID.fromString(in.get("object").asString()),
                in.get("class").asString(), in.get("user").asString(), Instant.parse(in.get("time").asString()),
                ChangeKind.valueOf(in.get("kind").asString()), in.has("usnBefore") ? in.get("usnBefore").longValue() : null,
                in.has("usnAfter") ? in.get("usnAfter").longValue() : null, decodeProperties(in.get("properties").toString()));
    }

    static String encodeFilter(ChangeFilter f) {
        ObjectNode out = JSON.createObjectNode();
        f.classes().stream().sorted().forEach(out.putArray("classes")::add);
        f.properties().stream().sorted().forEach(out.putArray("properties")::add);
        f.kinds().stream().map(Enum::name).sorted().forEach(out.putArray("kinds")::add);
        return out.toString();
    }

    static ChangeFilter decodeFilter(String json) {
        JsonNode in = read(json);
        Set<String> classes = new HashSet<>();
        in.path("classes").forEach(n -> classes.add(n.asString()));
        Set<String> properties = new HashSet<>();
        in.path("properties").forEach(n -> properties.add(n.asString()));
        Set<ChangeKind> kinds = new HashSet<>();
        in.path("kinds").forEach(n -> kinds.add(ChangeKind.valueOf(n.asString())));
        return new ChangeFilter(classes, properties, kinds);
    }

    private static void put(ObjectNode node, String key, Object value) {
        if (value == null) {
            return;
        }
        ObjectNode v = node.putObject(key);
        if (value instanceof String s) {
            v.put("s", s);
        } else if (value instanceof Integer i) {
            v.put("i", i);
        } else if (value instanceof Long l) {
            v.put("l", l);
        } else if (value instanceof Double d) {
            v.put("d", d);
        } else if (value instanceof Boolean b) {
            v.put("b", b);
        } else if (value instanceof Instant t) {
            v.put("t", t.toString());
        } else if (value instanceof UUID u) {
            v.put("u", u.toString());
        } else {
            throw new IllegalStateException("unvalidated value " + value.getClass());
        }
    }

    private static Object value(JsonNode v) {
        if (v == null || v.isNull() || v.isEmpty()) {
            return null;
        }
        Map.Entry<String, JsonNode> e = v.properties().iterator().next();
        JsonNode x = e.getValue();
        return switch (e.getKey()) {
            case "s" -> x.asString();
            case "i" -> x.intValue();
            case "l" -> x.longValue();
            case "d" -> x.doubleValue();
            case "b" -> x.booleanValue();
            case "t" -> Instant.parse(x.asString());
            case "u" -> UUID.fromString(x.asString());
            default -> throw new IllegalStateException("unknown value tag " + e.getKey());
        };
    }

    private static JsonNode read(String json) {
        try {
            return JSON.readTree(json);
        } catch (JacksonException e) {
            throw EngineRuntimeException.of(ExceptionCode.E_DATABASE_UNAVAILABLE, "Stored change is not readable: "
                    + e.getOriginalMessage(), e);
        }
    }
}
