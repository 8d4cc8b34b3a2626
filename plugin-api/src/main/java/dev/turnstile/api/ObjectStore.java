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

    /** A new custom object of {@code className}, saved by its first {@code save}. */
    CustomObject createCustomObject(String className);

    /** A new object with the id the caller chose (a second object with that id fails at save). */
    IndependentObject createObject(String className, java.util.UUID id);

    /** A new custom object of {@code className} with a chosen id, saved by its first {@code save}. */
    CustomObject createCustomObject(String className, java.util.UUID id);

    /** A new document of {@code className} ({@code Document} or a subclass), saved by its first {@code save}. */
    Document createDocument(String className);

    /** A new folder of {@code className} ({@code Folder} or a subclass), saved by its first {@code save}. */
    Folder createFolder(String className);

    /** Fetchless instantiation: no database access, USN null. */
    IndependentObject getObject(String className, UUID id);

    /** A fetchless custom object: no database trip, USN null. */
    CustomObject getCustomObject(String className, UUID id);

    /** A fetchless document: no database trip, USN null. */
    Document getDocument(String className, UUID id);

    /** A fetchless folder: no database trip, USN null. */
    Folder getFolder(String className, UUID id);

    /** One SELECT; fails with {@link ExceptionCode#E_OBJECT_NOT_FOUND} if there is no such object of that class. */
    IndependentObject fetchObject(String className, UUID id, PropertyFilter filter);

    /** Reads a custom object, with the properties {@code filter} names; {@code E_OBJECT_NOT_FOUND} if none. */
    CustomObject fetchCustomObject(String className, UUID id, PropertyFilter filter);

    /** Reads a document, with the properties {@code filter} names; {@code E_OBJECT_NOT_FOUND} if none. */
    Document fetchDocument(String className, UUID id, PropertyFilter filter);

    /** Reads a folder, with the properties {@code filter} names; {@code E_OBJECT_NOT_FOUND} if none. */
    Folder fetchFolder(String className, UUID id, PropertyFilter filter);

    /** A batch whose saves run in one transaction, all or none. */
    UpdatingBatch createUpdatingBatch(RefreshMode refreshMode);

    /**
     * The objects holding an unexpired cooperative lock that {@code query} asks for — by holder, by
     * class name text or object id, by lock token — a page of them and how many there are; objects
     * of the engine's classes only with their read role.
     */
    LockPage<ObjectLockInfo> lockedObjects(LockQuery query);

    /** Registers a preprocessor for saves of this class and its subclasses, in this engine. */
    void addChangePreprocessor(String className, ChangePreprocessor preprocessor);

    /** Stops {@code preprocessor} from running for saves of {@code className}. */
    void removeChangePreprocessor(String className, ChangePreprocessor preprocessor);
}
