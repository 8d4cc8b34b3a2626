package dev.turnstile.api;

import dev.turnstile.api.dispenser.Dispensers;
import dev.turnstile.api.editlock.EditLocks;
import dev.turnstile.api.treelock.TreeLocks;

import java.util.Set;

/**
 * A user's view of the engine: the one identity every capability acts as. The host application
 * authenticates the user; the engine records the name as Creator and LastModifier, as the holder of
 * cooperative, edit and tree locks, and as the taker of dispenser numbers. No capability takes a
 * user per call. Sessions are cheap and thread-safe; the objects they hand out are not, and belong
 * to one thread at a time.
 */
public interface Session {
    /** The user the host application authenticated. */
    String user();

    /** The roles the host application gave the user, such as the engine's lock-breaking role. */
    Set<String> roles();

    /** The object store, saving and locking as this session's user. */
    ObjectStore objectStore();

    /** The dispensers, taking numbers as this session's user. */
    Dispensers dispensers();

    /** Web edit locks held by this session's user. */
    EditLocks editLocks();

    /** Tree locks held by this session's user. */
    TreeLocks treeLocks();

    /** The engine this session belongs to. */
    ContentEngine engine();
}
