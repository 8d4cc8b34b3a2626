package dev.turnstile.engine.objects;

import dev.turnstile.api.ChangePreprocessor;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.engine.breaks.LockBreaks;
import dev.turnstile.engine.db.Database;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * What every session's object store shares in one engine: the class cache, the preprocessors and
 * the persistence. The engine makes one; {@link #objectStore(String)} gives each session its view.
 */
public final class ObjectStoreServices {
    /** The entities this capability maps; the engine hands them to Hibernate. */
    public static final List<Class<?>> ENTITIES = List.of(ObjectRecord.class, ClassRecord.class);

    final Database database;
    final ClassRegistry classes;
    final ChangePreprocessors preprocessors = new ChangePreprocessors();
    final ObjectPersistence persistence;
    /** Where the host observes takes, saves and dispatch passes. */
    public final Operations operations = new Operations();

    final SystemClasses systemClasses = new SystemClasses();
    /** Who may break other users' locks, and the record of what they broke. */
    final LockBreaks breaks;

    /** {@code locks}: the cooperative lock's part in saves (the {@code locks} capability). */
    public ObjectStoreServices(Database database, LockBreaks breaks, LockHook locks) {
        this(database, breaks, locks, ObjectStatements.of(database.productName()));
    }

    /**
     * With {@code statements} of its choosing: {@code new ObjectStatements()} makes a lock request take
     * the transaction MariaDB takes, on PostgreSQL and H2 too (the two-path tests).
     */
    ObjectStoreServices(Database database, LockBreaks breaks, LockHook locks, ObjectStatements statements) {
        this.database = database;
        this.breaks = breaks;
        this.classes = new ClassRegistry(database, systemClasses);
        this.persistence = new ObjectPersistence(database, classes, preprocessors, systemClasses, locks, statements, operations,
                breaks);
    }

    /**
     * Makes {@code className} one of the engine's own classes: only {@link #engineStore} and
     * {@link #inTransaction} may change its objects; sessions read them with {@code readRole}
     * (null: any session).
     */
    public void protectClass(String className, String service, String readRole) {
        systemClasses.protect(className, service, readRole);
    }

    /**
     * A preprocessor of the engine's own for {@code className}, run on the updates that change the
     * values of objects whose stored values pass {@code concerns} — not on other saves, which may
     * then commit by themselves (a lock alone, an unlock).
     */
    public void addUpdatePreprocessor(String className, Predicate<Map<String, Object>> concerns, ChangePreprocessor preprocessor) {
        preprocessors.addForUpdates(className, concerns, preprocessor);
    }

    /** Sets who is told of every object row written, inside the saving transaction (the change feed). */
    public void writeListener(ObjectWriteListener listener) {
        persistence.listener(listener);
    }

    /** Engine work in one transaction as {@code user}, with {@link ObjectTransaction#updateLocked}. */
    public <T> T inTransaction(Supplier<String> what, String user, Function<ObjectTransaction, T> work) {
        return persistence.inTransaction(what, new LockRules.Actor(user, false, true), work);
    }

    /** See {@link ObjectPersistence#aloneUnrecorded}: null, and nothing ran, where it cannot be one statement. */
    public <T> T aloneUnrecorded(Supplier<String> what, Function<org.hibernate.StatelessSession, T> statement) {
        return persistence.aloneUnrecorded(what, statement);
    }

    /** The object store of a session: its user, who may break others' locks with the lock-breaking role. */
    public ObjectStore objectStore(String user, Set<String> roles) {
        return new DefaultObjectStore(this, new LockRules.Actor(user, breaks.mayBreak(roles), false), roles);
    }

    /** The object store an engine service uses on behalf of {@code user}: it may change system objects. */
    public ObjectStore engineStore(String user) {
        return new DefaultObjectStore(this, new LockRules.Actor(user, false, true), Set.of());
    }
}
