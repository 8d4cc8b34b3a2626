package dev.turnstile.engine.config;

import dev.turnstile.api.EngineRuntimeException;

import java.util.function.Consumer;

/** The readers' side of the builders' checks: the builders hold every rule, the readers name file and key. */
final class Refusals {
    private Refusals() {
    }

    /** The rule of a builder's refusal: the parenthesised end of {@link EngineRuntimeException#badArgument}'s message. */
    static String ruleOf(EngineRuntimeException bad) {
        String m = bad.getMessage();
        int open = m.lastIndexOf(" (");
        return open >= 0 && m.endsWith(")") ? m.substring(open + 2, m.length() - 1) : m;
    }

    /** Runs one part of a reading: its error thrown, or handed to {@code errors} (when not null) and the reading goes on. */
    static void each(Consumer<EngineRuntimeException> errors, Runnable reading) {
        if (errors == null) {
            reading.run();
            return;
        }
        try {
            reading.run();
        } catch (EngineRuntimeException e) {
            errors.accept(e);
        }
    }
}
