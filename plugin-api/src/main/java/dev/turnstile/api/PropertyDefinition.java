package dev.turnstile.api;

import dev.turnstile.internal.Ranges;

/**
 * One property of a class: name, type, whether a value is required, an optional default, and for
 * strings the maximum length.
 *
 * @param name the property name
 * @param type the value type
 * @param required whether a save without a value is refused
 * @param defaultValue the value a new object gets, or null
 * @param maxLength the most characters of a string value
 */
public record PropertyDefinition(String name, PropertyType type, boolean required, Object defaultValue,
                                 int maxLength) {

    /** Strings have this maximum length unless the definition says otherwise. */
    public static final int DEFAULT_MAX_LENGTH = 4000;

    public PropertyDefinition {
        Ranges.required("property name", name);
        Ranges.required("type of " + name, type);
        if (!name.matches("[A-Za-z][A-Za-z0-9_]{0,63}")) {
            throw EngineRuntimeException.badArgument("property name", name,
                    "a letter followed by up to 63 letters, digits or underscores");
        }
        if (maxLength < 1) {
            throw EngineRuntimeException.badArgument("maxLength of " + name, maxLength, "must be at least 1");
        }
        if (defaultValue != null && !type.javaType().isInstance(defaultValue)) {
            throw EngineRuntimeException.badArgument("default of " + name, defaultValue,
                    "must be a " + type.javaType().getSimpleName());
        }
    }

    /** An optional property of {@code type} with no default. */
    public static PropertyDefinition of(String name, PropertyType type) {
        return new PropertyDefinition(name, type, false, null, DEFAULT_MAX_LENGTH);
    }
}
