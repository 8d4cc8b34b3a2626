package dev.turnstile.engine.objects;

/**
 * Told of every object row a save writes, in the saving transaction, after the USN check passed:
 * what it writes commits or rolls back with the save. The change feed records changes this way.
 */
@FunctionalInterface
public interface ObjectWriteListener {
    void written(ObjectTransaction tx, ObjectWrite write);
}
