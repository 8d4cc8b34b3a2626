package dev.turnstile.api;

/**
 * Saves several objects in one transaction: all succeed or none. Each object is USN-checked as in a
 * single save; the exception of a failed batch names the object that failed.
 */
public interface UpdatingBatch {
    /** Adds an object with pending changes; the filter is kept for API compatibility with FileNet. */
    void add(IndependentObject object, PropertyFilter filter);

    /** How many objects the batch holds. */
    int size();

    /** Whether the batch holds objects not yet written by {@link #updateBatch()}. */
    boolean hasPendingExecute();

    /** Runs the batch; afterwards it is empty and may be reused. */
    void updateBatch();
}
