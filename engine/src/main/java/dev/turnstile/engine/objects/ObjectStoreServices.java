package dev.turnstile.engine.objects;

import dev.turnstile.api.ObjectStore;
import dev.turnstile.engine.db.Database;

import java.util.List;

/**
 * What every session's object store shares in one engine: the class cache, the preprocessors and
 * the persistence. The engine makes one; {@link #objectStore(String)} gives each session its view.
 */
public final class ObjectStoreServices {
    /** The entities this capability maps; the engine hands them to Hibernate. */
    public static final List<Class<?>> ENTITIES = List.of(ObjectRecord.class, ClassRecord.class);

    final ClassRegistry classes;
    final ChangePreprocessors preprocessors = new ChangePreprocessors();
    final ObjectPersistence persistence;

    public ObjectStoreServices(Database database) {
        this.classes = new ClassRegistry(database);
        this.persistence = new ObjectPersistence(database, classes, preprocessors);
    }

    public ObjectStore objectStore(String user) {
        return new DefaultObjectStore(this, user);
    }
}
