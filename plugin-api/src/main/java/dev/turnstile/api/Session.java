package dev.turnstile.api;

import dev.turnstile.api.dispenser.Dispensers;

/**
 * A user's view of the engine. The host application authenticates the user; the engine records
 * the name as Creator, LastModifier and lock holder. Sessions are cheap and thread-safe; the
 * objects they hand out are not, and belong to one thread at a time.
 */
public interface Session {
    String user();

    /** The roles the host application gave the user, such as the engine's lock-breaking role. */
    java.util.Set<String> roles();

    ObjectStore objectStore();

    /** The dispensers, taking numbers as this session's user. */
    Dispensers dispensers();

    ContentEngine engine();
}
