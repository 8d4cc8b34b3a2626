package dev.turnstile.api;

/**
 * Collects the properties of a class being defined; given to the lambda of
 * {@link ObjectStore#defineClass(String, java.util.function.Consumer)}.
 */
public interface ClassDefinitionBuilder {
    /** The superclass; {@link ClassDefinition#CUSTOM_OBJECT} unless set. */
    ClassDefinitionBuilder superclass(String className);

    /** Adds a property with every detail of its definition (required flag, default, maximum length). */
    ClassDefinitionBuilder property(PropertyDefinition definition);

    /** Enforced locks for this class and its subclasses (see {@link ClassDefinition#isLockEnforced()}). */
    ClassDefinitionBuilder enforceLocks(boolean enforce);

    /** Adds an optional string property of at most {@link PropertyDefinition#DEFAULT_MAX_LENGTH} characters. */
    default ClassDefinitionBuilder string(String name) {
        return property(PropertyDefinition.of(name, PropertyType.STRING));
    }

    /** Adds an optional string property of at most {@code maxLength} characters. */
    default ClassDefinitionBuilder string(String name, int maxLength) {
        return property(new PropertyDefinition(name, PropertyType.STRING, false, null, maxLength));
    }

    /** Adds an optional 32-bit integer property. */
    default ClassDefinitionBuilder integer32(String name) {
        return property(PropertyDefinition.of(name, PropertyType.INTEGER32));
    }

    /** Adds an optional 64-bit integer property. */
    default ClassDefinitionBuilder int64(String name) {
        return property(PropertyDefinition.of(name, PropertyType.INT64));
    }

    /** Adds an optional double-precision floating-point property. */
    default ClassDefinitionBuilder float64(String name) {
        return property(PropertyDefinition.of(name, PropertyType.FLOAT64));
    }

    /** Adds an optional boolean property. */
    default ClassDefinitionBuilder bool(String name) {
        return property(PropertyDefinition.of(name, PropertyType.BOOLEAN));
    }

    /** Adds an optional date-time ({@link java.time.Instant}) property. */
    default ClassDefinitionBuilder dateTime(String name) {
        return property(PropertyDefinition.of(name, PropertyType.DATETIME));
    }

    /** Adds an optional id ({@link java.util.UUID}) property. */
    default ClassDefinitionBuilder id(String name) {
        return property(PropertyDefinition.of(name, PropertyType.ID));
    }

    /** A property that must have a value on every save, with no default. */
    default ClassDefinitionBuilder required(String name, PropertyType type) {
        return property(new PropertyDefinition(name, type, true, null, PropertyDefinition.DEFAULT_MAX_LENGTH));
    }
}
