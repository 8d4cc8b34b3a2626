package dev.turnstile.api;

import java.util.UUID;
import java.util.function.Consumer;

/** Classes and objects, as seen by one session's user. */
public interface ObjectStore {
    /**
     * Defines a class, or adds properties to an existing one. Redefining a property with another type
     * fails with {@link ExceptionCode#E_BAD_VALUE}. Visible at once to every engine on the database.
     */
    ClassDefinition defineClass(String className, Consumer<ClassDefinitionBuilder> properties);

    /** Fails with {@link ExceptionCode#E_CLASS_NOT_FOUND} for an unknown class. */
    ClassDefinition getClassDefinition(String className);

    /** A new, unsaved instance with a fresh id and the class's defaults. */
    IndependentObject createObject(String className);

    CustomObject createCustomObject(String className);

    /** A new object with the id the caller chose (a second object with that id fails at save). */
    IndependentObject createObject(String className, java.util.UUID id);

    CustomObject createCustomObject(String className, java.util.UUID id);

    Document createDocument(String className);

    Folder createFolder(String className);

    /** Fetchless instantiation: no database access, USN null. */
    IndependentObject getObject(String className, UUID id);

    CustomObject getCustomObject(String className, UUID id);

    Document getDocument(String className, UUID id);

    Folder getFolder(String className, UUID id);

    /** One SELECT; fails with {@link ExceptionCode#E_OBJECT_NOT_FOUND} if there is no such object of that class. */
    IndependentObject fetchObject(String className, UUID id, PropertyFilter filter);

    CustomObject fetchCustomObject(String className, UUID id, PropertyFilter filter);

    Document fetchDocument(String className, UUID id, PropertyFilter filter);

    Folder fetchFolder(String className, UUID id, PropertyFilter filter);

    UpdatingBatch createUpdatingBatch(RefreshMode refreshMode);

    /**
     * The objects that hold an unexpired cooperative lock, soonest expiry first, at most
     * {@code max}; objects of the engine's classes only with their read role.
     */
    java.util.List<ObjectLockInfo> lockedObjects(int max);

    /** Registers a preprocessor for saves of this class and its subclasses, in this engine. */
    void addChangePreprocessor(String className, ChangePreprocessor preprocessor);

    void removeChangePreprocessor(String className, ChangePreprocessor preprocessor);
}
