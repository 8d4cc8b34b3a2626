package dev.turnstile.engine.config;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;

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

    /** A builder's refusal ({@code E_BAD_VALUE}) said as {@code E_CONFIG_INVALID} naming file, key and value; a configuration error as it is. */
    static EngineRuntimeException atKey(EngineRuntimeException bad, String source, String keyPath, Object value) {
        return bad.getExceptionCode() == ExceptionCode.E_CONFIG_INVALID ? bad
                : EngineRuntimeException.configInvalid(source, keyPath, value, ruleOf(bad));
    }

    /** Runs {@code setting}, a builder's setter or build; its refusal said {@link #atKey at the key}. */
    static void at(String source, String keyPath, Object value, Runnable setting) {
        try {
            setting.run();
        } catch (EngineRuntimeException e) {
            throw atKey(e, source, keyPath, value);
        }
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
