package dev.turnstile.api.dispenser;

import dev.turnstile.api.EngineRuntimeException;

/**
 * The numbers {@code first} to {@code last} of a series, both included.
 *
 * @param first the first number
 * @param last the last number
 */
public record NumberRange(long first, long last) {
    public NumberRange {
        if (last < first) {
            throw EngineRuntimeException.badArgument("number range", first + ".." + last, "last must not be below first");
        }
    }

    /** How many numbers the range holds. */
    public long count() {
        return last - first + 1;
    }
}
