package dev.turnstile.engine.objects;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.PropertyDefinition;
import dev.turnstile.api.PropertyType;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/** Checks values against a class definition before anything is written. */
final class PropertyValues {
    private PropertyValues() {
    }

    /**
     * The values normalised to their property types (an Integer for an Int64 becomes a Long), with
     * nulls dropped; fails on the first undefined property, wrong type, over-long string or missing
     * required value, naming class, object, property and value.
     */
    static Map<String, Object> validate(DefaultClassDefinition definition, UUID id, Map<String, Object> values) {
        Map<String, Object> normalised = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : values.entrySet()) {
            PropertyDefinition def = definition.getPropertyDefinitionsByName().get(e.getKey());
            if (def == null) {
                throw EngineRuntimeException.propertyNotDefined(definition.getName(), e.getKey());
            }
            if (e.getValue() != null) {
                normalised.put(e.getKey(), normalise(definition.getName(), id, def, e.getValue()));
            }
        }
        for (PropertyDefinition def : definition.getPropertyDefinitions()) {
            if (def.required() && normalised.get(def.name()) == null) {
                throw EngineRuntimeException.badValue(definition.getName(), id, def.name(), null, "a value is required");
            }
        }
        return normalised;
    }

    private static Object normalise(String className, UUID id, PropertyDefinition def, Object value) {
        Object typed = coerce(def.type(), value);
        if (typed == null) {
            throw EngineRuntimeException.badValue(className, id, def.name(), value,
                    "expected " + displayName(def.type()));
        }
        if (typed instanceof String s && s.length() > def.maxLength()) {
            throw EngineRuntimeException.badValue(className, id, def.name(), value,
                    "longer than the maximum length " + def.maxLength());
        }
        if (typed instanceof Double d && (d.isNaN() || d.isInfinite())) {
            throw EngineRuntimeException.badValue(className, id, def.name(), value, "not a finite number");
        }
        return typed;
    }

    /** The value as the property's Java type, widening where no information is lost; null if it does not fit. */
    private static Object coerce(PropertyType type, Object value) {
        switch (type) {
            case INTEGER32:
                return value instanceof Integer || value instanceof Short || value instanceof Byte
                        ? ((Number) value).intValue() : null;
            case INT64:
                return value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte
                        ? ((Number) value).longValue() : null;
            case FLOAT64:
                return value instanceof Double || value instanceof Float ? ((Number) value).doubleValue() : null;
            default:
                return type.javaType().isInstance(value) ? value : null;
        }
    }

    static String displayName(PropertyType type) {
        return switch (type) {
            case STRING -> "String";
            case INTEGER32 -> "Integer32 (Integer)";
            case INT64 -> "Int64 (Long)";
            case FLOAT64 -> "Float64 (Double)";
            case BOOLEAN -> "Boolean";
            case DATETIME -> "DateTime (Instant)";
            case ID -> "Id (UUID)";
        };
    }

    /** For typed getters: the value as {@code type}, accepting any number for numeric getters. */
    static <T> T as(Object value, Class<T> type, String className, UUID id, String property) {
        if (value == null || type.isInstance(value)) {
            return type.cast(value);
        }
        if (value instanceof Number n) {
            if (type == Long.class) {
                return type.cast(n.longValue());
            }
            if (type == Integer.class && n.longValue() == n.intValue()) {
                return type.cast(n.intValue());
            }
            if (type == Double.class) {
                return type.cast(n.doubleValue());
            }
        }
        throw EngineRuntimeException.badValue(className, id, property, value, "is not a " + type.getSimpleName());
    }
}
