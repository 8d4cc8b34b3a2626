package dev.turnstile.engine.config;

import dev.turnstile.api.EngineRuntimeException;

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
}
