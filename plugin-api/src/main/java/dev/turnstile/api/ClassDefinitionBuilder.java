package dev.turnstile.api;

/**
 * Collects the properties of a class being defined; given to the lambda of
 * {@link ObjectStore#defineClass(String, java.util.function.Consumer)}.
 */
public interface ClassDefinitionBuilder {
    /** The superclass; {@link ClassDefinition#CUSTOM_OBJECT} unless set. */
    ClassDefinitionBuilder superclass(String className);

    ClassDefinitionBuilder property(PropertyDefinition definition);

    /** Enforced locks for this class and its subclasses (see {@link ClassDefinition#isLockEnforced()}). */
    ClassDefinitionBuilder enforceLocks(boolean enforce);

    default ClassDefinitionBuilder string(String name) {
        return property(PropertyDefinition.of(name, PropertyType.STRING));
    }

    default ClassDefinitionBuilder string(String name, int maxLength) {
        return property(new PropertyDefinition(name, PropertyType.STRING, false, null, maxLength));
    }

    default ClassDefinitionBuilder integer32(String name) {
        return property(PropertyDefinition.of(name, PropertyType.INTEGER32));
    }

    default ClassDefinitionBuilder int64(String name) {
        return property(PropertyDefinition.of(name, PropertyType.INT64));
    }

    default ClassDefinitionBuilder float64(String name) {
        return property(PropertyDefinition.of(name, PropertyType.FLOAT64));
    }

    default ClassDefinitionBuilder bool(String name) {
        return property(PropertyDefinition.of(name, PropertyType.BOOLEAN));
    }

    default ClassDefinitionBuilder dateTime(String name) {
        return property(PropertyDefinition.of(name, PropertyType.DATETIME));
    }

    default ClassDefinitionBuilder id(String name) {
        return property(PropertyDefinition.of(name, PropertyType.ID));
    }

    /** A property that must have a value on every save, with no default. */
    default ClassDefinitionBuilder required(String name, PropertyType type) {
        return property(new PropertyDefinition(name, type, true, null, PropertyDefinition.DEFAULT_MAX_LENGTH));
    }
}
