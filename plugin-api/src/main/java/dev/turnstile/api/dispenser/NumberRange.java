package dev.turnstile.api.dispenser;

import dev.turnstile.api.EngineRuntimeException;

/** The numbers {@code first} to {@code last} of a series, both included. */
public record NumberRange(long first, long last) {
    public NumberRange {
        if (last < first) {
            throw EngineRuntimeException.badArgument("number range", first + ".." + last, "last must not be below first");
        }
    }

    public long count() {
        return last - first + 1;
    }
}
