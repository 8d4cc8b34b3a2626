package dev.turnstile.api;

/**
 * Runs inside the saving transaction, before the write, for every save of an object of the class
 * it is registered for (and its subclasses). It may change property values through
 * {@link ChangeContext#properties()}; throwing rolls the whole save back.
 */
@FunctionalInterface
public interface ChangePreprocessor {
    void preprocessObjectChange(ChangeContext change);
}
