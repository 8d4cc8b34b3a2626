package dev.turnstile.engine.objects;

import dev.turnstile.api.ChangeContext;
import org.hibernate.StatelessSession;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * The transaction a save (or a capability's own work) runs in, for engine capabilities that must
 * change other rows atomically with it — a dispenser numbering a document in the transaction that
 * creates it, recording the numbers it issues. Not part of the plugin API.
 */
public interface ObjectTransaction {
    StatelessSession session();

    String user();

    /** The time stamped on the rows of this transaction. */
    Instant now();

    /**
     * Reads the object FOR UPDATE: its USN and values stay as read until this transaction ends.
     * {@code E_OBJECT_NOT_FOUND} if there is no such object.
     */
    LockedObject readLocked(String className, UUID id);

    /** An object as {@link #readLocked} read it. */
    record LockedObject(long usn, Map<String, Object> values) {
    }

    /**
     * Reads the object FOR UPDATE, applies {@code change} to its values, runs the class's
     * preprocessors, validates and writes it, in this transaction; returns the values written.
     */
    Map<String, Object> updateLocked(String className, UUID id, Consumer<Map<String, Object>> change);

    /**
     * Runs {@code action} in this transaction right after the row being saved is written — after its
     * USN check passed — so rows that depend on the save (an issued-number register) are written
     * only by the writer that won. For use by preprocessors.
     */
    void afterWrite(Runnable action);

    /** The transaction of a preprocessor's change, when the engine runs it. */
    static Optional<ObjectTransaction> of(ChangeContext change) {
        return change instanceof DefaultChangeContext c ? Optional.of(c.transaction()) : Optional.empty();
    }
}
