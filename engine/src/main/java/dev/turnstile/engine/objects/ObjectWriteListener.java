package dev.turnstile.engine.objects;

/**
 * Told of every object row a save writes, in the saving transaction, after the USN check passed:
 * what it writes commits or rolls back with the save. The change feed records changes this way.
 */
public interface ObjectWriteListener {
    void written(ObjectTransaction tx, ObjectWrite write);

    /**
     * A transaction in which {@link #written} was called has committed (or, inside the host's
     * transaction, finished its part: the host commits later).
     */
    default void committed() {
    }
}
