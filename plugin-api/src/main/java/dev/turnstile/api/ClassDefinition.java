package dev.turnstile.api;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A class of objects: its name, its superclass and every property it has, inherited ones included. */
public interface ClassDefinition {
    /** The built-in root classes; every class descends from exactly one of them. */
    String CUSTOM_OBJECT = "CustomObject";
    /** The built-in lockable class of documents. */
    String DOCUMENT = "Document";
    /** The built-in lockable class of folders. */
    String FOLDER = "Folder";
    /** A relationship between two objects: not lockable, as in FileNet. */
    String LINK = "Link";

    /** The class name, unique in the object store. */
    String getName();

    /** Null for the built-in root classes. */
    String getSuperclassName();

    /** {@link #CUSTOM_OBJECT}, {@link #DOCUMENT}, {@link #FOLDER} or {@link #LINK}. */
    String getBaseClassName();

    /** Whether this class is {@code className} or descends from it. */
    boolean isSubclassOf(String className);

    /** CustomObject, Document and Folder classes are; Link classes are not. */
    boolean isLockable();

    /**
     * Whether locks are enforced: a save by anyone but the holder of an unexpired lock fails with
     * {@link ExceptionCode#E_OBJECT_LOCKED}. Off (advisory locks, as in FileNet) unless the class or
     * a superclass turned it on.
     */
    boolean isLockEnforced();

    /** Custom properties, inherited first, in definition order. */
    List<PropertyDefinition> getPropertyDefinitions();

    /** The definition of property {@code name} (own or inherited), if the class has one. */
    Optional<PropertyDefinition> getPropertyDefinition(String name);

    /** Name to definition, in definition order. */
    Map<String, PropertyDefinition> getPropertyDefinitionsByName();
}
