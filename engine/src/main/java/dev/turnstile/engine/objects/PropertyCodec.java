package dev.turnstile.engine.objects;

import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import dev.turnstile.api.ClassDefinition;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.PropertyDefinition;
import dev.turnstile.api.PropertyType;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Property values and definitions to and from the JSON text stored in the database. Values are
 * typed by the class definition: DateTime as ISO-8601 text, Id as UUID text, numbers as numbers.
 */
final class PropertyCodec {
    private static final ObjectMapper JSON = new ObjectMapper();

    private PropertyCodec() {
    }

    static String encodeValues(Map<String, Object> values) {
        ObjectNode node = JSON.createObjectNode();
        values.forEach((name, value) -> {
            if (value == null) {
                return; // absent and null mean the same: no value
            }
            if (value instanceof String s) {
                node.put(name, s);
            } else if (value instanceof Integer i) {
                node.put(name, i);
            } else if (value instanceof Long l) {
                node.put(name, l);
            } else if (value instanceof Double d) {
                node.put(name, d);
            } else if (value instanceof Boolean b) {
                node.put(name, b);
            } else if (value instanceof Instant || value instanceof UUID) {
                node.put(name, value.toString());
            } else {
                throw new IllegalStateException("unvalidated value " + value.getClass());
            }
        });
        return node.toString();
    }

    /**
     * Decodes the stored values; a property the definition does not know (defined by a newer
     * process) is reported through {@code unknown} so the caller can reload the class.
     */
    static Map<String, Object> decodeValues(String json, ClassDefinition definition, List<String> unknown) {
        Map<String, Object> values = new LinkedHashMap<>();
        JsonNode node = read(json);
        node.properties().forEach(entry -> {
            PropertyDefinition def = definition.getPropertyDefinitionsByName().get(entry.getKey());
            if (def == null) {
                unknown.add(entry.getKey());
                return;
            }
            values.put(entry.getKey(), decode(def.type(), entry.getValue()));
        });
        return values;
    }

    private static Object decode(PropertyType type, JsonNode v) {
        return switch (type) {
            case STRING -> v.asString();
            case INTEGER32 -> v.intValue();
            case INT64 -> v.longValue();
            case FLOAT64 -> v.doubleValue();
            case BOOLEAN -> v.booleanValue();
            case DATETIME -> Instant.parse(v.asString());
            case ID -> UUID.fromString(v.asString());
        };
    }

    private record StoredDefinition(String name, PropertyType type, boolean required, JsonNode defaultValue,
                                    int maxLength) {
    }

    static String encodeDefinitions(List<PropertyDefinition> definitions) {
        List<StoredDefinition> stored = new ArrayList<>();
        for (PropertyDefinition d : definitions) {
            JsonNode defaultValue = d.defaultValue() == null ? null
                    : read(encodeValues(Map.of("v", d.defaultValue()))).get("v");
            stored.add(new StoredDefinition(d.name(), d.type(), d.required(), defaultValue, d.maxLength()));
        }
        try {
            return JSON.writeValueAsString(stored);
        } catch (JacksonException e) {
            throw new IllegalStateException(e);
        }
    }

    static List<PropertyDefinition> decodeDefinitions(String json) {
        try {
            List<StoredDefinition> stored = JSON.readValue(json, new TypeReference<>() { });
            List<PropertyDefinition> definitions = new ArrayList<>();
            for (StoredDefinition s : stored) {
                Object defaultValue = s.defaultValue() == null || s.defaultValue().isNull() ? null
                        : decode(s.type(), s.defaultValue());
                definitions.add(new PropertyDefinition(s.name(), s.type(), s.required(), defaultValue, s.maxLength()));
            }
            return definitions;
        } catch (JacksonException e) {
            throw EngineRuntimeException.of(ExceptionCode.E_DATABASE_UNAVAILABLE,
                    "Stored class definition is not readable: " + e.getOriginalMessage(), e);
        }
    }

    private static JsonNode read(String json) {
        try {
            return JSON.readTree(json);
        } catch (JacksonException e) {
            throw EngineRuntimeException.of(ExceptionCode.E_DATABASE_UNAVAILABLE,
                    "Stored property values are not readable: " + e.getOriginalMessage(), e);
        }
    }
}
