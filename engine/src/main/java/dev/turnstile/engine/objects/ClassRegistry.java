package dev.turnstile.engine.objects;

import dev.turnstile.api.ClassDefinition;
import dev.turnstile.api.ClassDefinitionBuilder;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.PropertyDefinition;
import dev.turnstile.api.PropertyType;
import dev.turnstile.engine.db.Database;
import org.hibernate.LockMode;
import org.hibernate.StatelessSession;
import org.hibernate.exception.ConstraintViolationException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Class definitions: the three built-in roots in code, user classes in {@code ts_class}, cached
 * per engine. Another process may add properties to a class at any time; a reader that meets a
 * property it does not know calls {@link #reload()} and looks again.
 */
final class ClassRegistry {
    static final Set<String> SYSTEM_PROPERTIES = Set.of("Id", "ClassName", "Creator", "DateCreated",
            "LastModifier", "DateLastModified", "UpdateSequenceNumber");
    private static final String NAME_PATTERN = "[A-Za-z][A-Za-z0-9_]{0,63}";
    private static final int DEFINE_ATTEMPTS = 5;

    private final Database database;
    private final SystemClasses systemClasses;
    private final Map<String, DefaultClassDefinition> builtIns = Map.of(
            ClassDefinition.CUSTOM_OBJECT, new DefaultClassDefinition(ClassDefinition.CUSTOM_OBJECT, null, List.of(), false),
            ClassDefinition.DOCUMENT, new DefaultClassDefinition(ClassDefinition.DOCUMENT, null,
                    List.of(new PropertyDefinition("DocumentTitle", PropertyType.STRING, false, null, 255)), false),
            ClassDefinition.FOLDER, new DefaultClassDefinition(ClassDefinition.FOLDER, null,
                    List.of(new PropertyDefinition("FolderName", PropertyType.STRING, false, null, 255)), false),
            ClassDefinition.LINK, new DefaultClassDefinition(ClassDefinition.LINK, null,
                    List.of(PropertyDefinition.of("Head", PropertyType.ID), PropertyDefinition.of("Tail", PropertyType.ID)), false));
    private final Map<String, DefaultClassDefinition> cache = new ConcurrentHashMap<>();

    ClassRegistry(Database database, SystemClasses systemClasses) {
        this.database = database;
        this.systemClasses = systemClasses;
    }

    /** The class, from the cache or the database; {@link ExceptionCode#E_CLASS_NOT_FOUND} if unknown. */
    DefaultClassDefinition get(String className) {
        DefaultClassDefinition builtIn = builtIns.get(className);
        if (builtIn != null) {
            return builtIn;
        }
        DefaultClassDefinition cached = cache.get(className);
        if (cached != null) {
            return cached;
        }
        checkName("class name", className);
        DefaultClassDefinition loaded = database.inTransaction(() -> "reading class " + className,
                session -> load(session, className, LockMode.NONE));
        if (loaded == null) {
            throw EngineRuntimeException.classNotFound(className);
        }
        cache.put(className, loaded);
        return loaded;
    }

    /** As {@link #get(String)}, reading through the caller's transaction on a cache miss. */
    DefaultClassDefinition get(StatelessSession session, String className) {
        DefaultClassDefinition known = builtIns.containsKey(className) ? builtIns.get(className) : cache.get(className);
        if (known != null) {
            return known;
        }
        checkName("class name", className);
        DefaultClassDefinition loaded = load(session, className, LockMode.NONE);
        if (loaded == null) {
            throw EngineRuntimeException.classNotFound(className);
        }
        cache.put(className, loaded);
        return loaded;
    }

    /** The class as the database holds it now, read in the caller's transaction; the cache takes it. */
    DefaultClassDefinition fresh(StatelessSession session, String className) {
        DefaultClassDefinition loaded = load(session, className, LockMode.NONE);
        if (loaded == null) {
            throw EngineRuntimeException.classNotFound(className);
        }
        if (!builtIns.containsKey(className)) {
            cache.put(className, loaded);
        }
        return loaded;
    }

    /** Forgets every cached user class, so that the next {@link #get} reads the database. */
    void reload() {
        cache.clear();
    }

    private DefaultClassDefinition load(StatelessSession session, String className, LockMode lockMode) {
        DefaultClassDefinition builtIn = builtIns.get(className);
        if (builtIn != null) {
            return builtIn;
        }
        ClassRecord record = session.get(ClassRecord.class, className, lockMode);
        if (record == null) {
            return null;
        }
        DefaultClassDefinition superclass = load(session, record.superclassName, LockMode.NONE);
        return new DefaultClassDefinition(record.name, superclass, PropertyCodec.decodeDefinitions(record.propertyDefinitions),
                Boolean.TRUE.equals(record.enforceLocks));
    }

    ClassDefinition define(String className, Consumer<ClassDefinitionBuilder> spec, LockRules.Actor actor) {
        checkName("class name", className);
        if (builtIns.containsKey(className)) {
            throw EngineRuntimeException.badArgument("class name", className, "built-in classes cannot be redefined");
        }
        Spec requested = new Spec();
        spec.accept(requested);
        DefaultClassDefinition superclass = get(requested.superclass);
        systemClasses.checkDefine(className, superclass, actor);
        for (PropertyDefinition p : requested.properties.values()) {
            if (SYSTEM_PROPERTIES.contains(p.name())) {
                throw EngineRuntimeException.badValue(className, null, p.name(), p.name(), "a system property name");
            }
            PropertyDefinition inherited = superclass.getPropertyDefinitionsByName().get(p.name());
            if (inherited != null) {
                throw EngineRuntimeException.badValue(className, null, p.name(), p.type(),
                        "already defined by superclass " + superclass.getName());
            }
        }
        for (int attempt = 1; ; attempt++) {
            try {
                DefaultClassDefinition defined = database.inTransaction(() -> "defining class " + className,
                        session -> defineIn(session, className, superclass, requested));
                reload(); // subclasses cached with the old definition must see the new properties
                cache.put(className, defined);
                return defined;
            } catch (EngineRuntimeException e) {
                // Two processes inserting the same new class: the loser reads the winner's and merges.
                if (attempt == DEFINE_ATTEMPTS || !(e.getCause() instanceof ConstraintViolationException)) {
                    throw e;
                }
            }
        }
    }

    private DefaultClassDefinition defineIn(StatelessSession session, String className,
                                            DefaultClassDefinition superclass, Spec requested) {
        DefaultClassDefinition existing = load(session, className, LockMode.PESSIMISTIC_WRITE);
        if (existing == null) {
            List<PropertyDefinition> own = new ArrayList<>(requested.properties.values());
            session.insert(new ClassRecord(className, superclass.getName(), PropertyCodec.encodeDefinitions(own),
                    Boolean.TRUE.equals(requested.enforceLocks)));
            return new DefaultClassDefinition(className, superclass, own, Boolean.TRUE.equals(requested.enforceLocks));
        }
        if (!existing.getSuperclassName().equals(superclass.getName())) {
            throw EngineRuntimeException.badValue(className, null, "superclass", superclass.getName(),
                    "the class already extends " + existing.getSuperclassName());
        }
        List<PropertyDefinition> own = new ArrayList<>(existing.ownProperties());
        boolean changed = false;
        for (PropertyDefinition p : requested.properties.values()) {
            PropertyDefinition current = existing.getPropertyDefinitionsByName().get(p.name());
            if (current == null) {
                own.add(p);
                changed = true;
            } else if (!current.equals(p)) {
                throw EngineRuntimeException.badValue(className, null, p.name(), p.type(),
                        "already defined as " + current);
            }
        }
        boolean enforce = requested.enforceLocks != null ? requested.enforceLocks : existing.ownLockEnforcement();
        if (changed || enforce != existing.ownLockEnforcement()) {
            session.createMutationQuery("update ClassRecord c set c.propertyDefinitions = :defs,"
                            + " c.enforceLocks = :enforce, c.revision = c.revision + 1 where c.name = :name")
                    .setParameter("defs", PropertyCodec.encodeDefinitions(own))
                    .setParameter("enforce", enforce)
                    .setParameter("name", className)
                    .executeUpdate();
        }
        return new DefaultClassDefinition(className, superclass, own, enforce);
    }

    static void checkName(String what, String name) {
        if (name == null || !name.matches(NAME_PATTERN)) {
            throw EngineRuntimeException.badArgument(what, name,
                    "a letter followed by up to 63 letters, digits or underscores");
        }
    }

    private static final class Spec implements ClassDefinitionBuilder {
        private String superclass = ClassDefinition.CUSTOM_OBJECT;
        private final Map<String, PropertyDefinition> properties = new LinkedHashMap<>();
        /** Null: keep what the class has (false for a new class). */
        private Boolean enforceLocks;

        @Override
        public ClassDefinitionBuilder enforceLocks(boolean enforce) {
            this.enforceLocks = enforce;
            return this;
        }

        @Override
        public ClassDefinitionBuilder superclass(String className) {
            checkName("superclass name", className);
            this.superclass = className;
            return this;
        }

        @Override
        public ClassDefinitionBuilder property(PropertyDefinition definition) {
            if (properties.putIfAbsent(definition.name(), definition) != null) {
                throw EngineRuntimeException.badArgument("property " + definition.name(), definition.name(),
                        "defined twice in one definition");
            }
            return this;
        }
    }
}
