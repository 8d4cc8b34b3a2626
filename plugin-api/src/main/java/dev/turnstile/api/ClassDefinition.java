package dev.turnstile.api;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A class of objects: its name, its superclass and every property it has, inherited ones included. */
public interface ClassDefinition {
    /** The built-in root classes; every class descends from exactly one of them. */
    String CUSTOM_OBJECT = "CustomObject";
    String DOCUMENT = "Document";
    String FOLDER = "Folder";

    String getName();

    /** Null for the built-in root classes. */
    String getSuperclassName();

    /** {@link #CUSTOM_OBJECT}, {@link #DOCUMENT} or {@link #FOLDER}. */
    String getBaseClassName();

    /** Whether this class is {@code className} or descends from it. */
    boolean isSubclassOf(String className);

    /** Custom properties, inherited first, in definition order. */
    List<PropertyDefinition> getPropertyDefinitions();

    Optional<PropertyDefinition> getPropertyDefinition(String name);

    /** Name to definition, in definition order. */
    Map<String, PropertyDefinition> getPropertyDefinitionsByName();
}
