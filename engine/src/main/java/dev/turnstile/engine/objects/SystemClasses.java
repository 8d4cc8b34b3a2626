package dev.turnstile.engine.objects;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;

import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The engine's own classes (the dispenser counters, the edit-lock articles): their objects change
 * only through the service that owns them, never through an ordinary save, lock, unlock or delete,
 * and no one else may define, extend or preprocess the class. A user could otherwise reset a
 * counter, lock it for decades or delete it with the object API, or bypass edit locks.
 */
final class SystemClasses {
    /** Who owns a class, and the role that may read its objects through the object store (null: anyone). */
    private record Owner(String service, String readRole) {
    }

    private final Map<String, Owner> owners = new ConcurrentHashMap<>();

    void protect(String className, String service, String readRole) {
        owners.put(className, new Owner(service, readRole));
    }

    /** The system class {@code definition} is or extends, or null. */
    String systemClassOf(DefaultClassDefinition definition) {
        for (DefaultClassDefinition c = definition; c != null; c = c.superclass()) {
            if (owners.containsKey(c.getName())) {
                return c.getName();
            }
        }
        return null;
    }

    /** Refuses {@code action} on {@code definition}'s objects unless the engine itself acts. */
    void checkChange(DefaultClassDefinition definition, UUID id, LockRules.Actor actor, String action) {
        String system = systemClassOf(definition);
        if (system != null && !actor.engine()) {
            throw denied(actor.user(), action, definition.getName(), id, system);
        }
    }

    /** Refuses defining (or redefining) a system class, or a subclass of one, unless the engine itself acts. */
    void checkDefine(String className, DefaultClassDefinition superclass, LockRules.Actor actor) {
        if (actor.engine()) {
            return;
        }
        if (owners.containsKey(className)) {
            throw denied(actor.user(), "define", className, null, className);
        }
        String system = systemClassOf(superclass);
        if (system != null) {
            throw denied(actor.user(), "define " + className + " as a subclass of", superclass.getName(), null, system);
        }
    }

    /** Whether the session may read objects of the class (an engine class needs its read role). */
    boolean mayRead(DefaultClassDefinition definition, LockRules.Actor actor, Set<String> roles) {
        String system = systemClassOf(definition);
        if (system == null || actor.engine()) {
            return true;
        }
        String role = owners.get(system).readRole();
        return role == null || roles.contains(role);
    }

    /**
     * The engine's classes whose objects the session may not read (it lacks their read role). Only the
     * engine defines subclasses of them ({@link #checkDefine}), and it defines none.
     */
    Set<String> unreadable(LockRules.Actor actor, Set<String> roles) {
        if (actor.engine()) {
            return Set.of();
        }
        Set<String> unreadable = new java.util.TreeSet<>();
        owners.forEach((className, owner) -> {
            if (owner.readRole() != null && !roles.contains(owner.readRole())) {
                unreadable.add(className);
            }
        });
        return unreadable;
    }

    /** Refuses a read of a system object by a session without the class's read role. */
    void checkRead(DefaultClassDefinition definition, UUID id, LockRules.Actor actor, Set<String> roles) {
        String system = systemClassOf(definition);
        if (system == null || actor.engine()) {
            return;
        }
        String role = owners.get(system).readRole();
        if (role != null && !roles.contains(role)) {
            throw EngineRuntimeException.of(ExceptionCode.E_ACCESS_DENIED, actor.user() + " may not read "
                    + definition.getName() + " {" + id + "}: reading objects of the engine's class " + system
                    + " needs the role " + role);
        }
    }

    private EngineRuntimeException denied(String user, String action, String className, UUID id, String system) {
        return EngineRuntimeException.of(ExceptionCode.E_ACCESS_DENIED, user + " may not " + action + " " + className
                + (id == null ? "" : " {" + id + "}") + ": objects of the engine's class " + system
                + " change only through the " + owners.get(system).service());
    }
}
