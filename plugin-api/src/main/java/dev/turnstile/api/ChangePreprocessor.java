package dev.turnstile.api;

/**
 * Runs inside the saving transaction, before the write, for every save of an object of the class
 * it is registered for (and its subclasses). It may change property values through
 * {@link ChangeContext#properties()}; throwing rolls the whole save back.
 */
@FunctionalInterface
public interface ChangePreprocessor {
    /** Sees, and may change, the values a save is about to write; throwing rolls the save back. */
    void preprocessObjectChange(ChangeContext change);
}
