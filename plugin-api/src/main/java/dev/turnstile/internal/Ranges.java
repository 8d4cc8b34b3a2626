package dev.turnstile.internal;

import java.time.Duration;

/**
 * The documented range of every numeric setting, and the one wording a refusal uses ("from 1ms
 * to 1h"). Comparisons never convert a duration to a number, so no value can overflow on the way.
 *
 * <p>Shared by the configuration types of every capability package; not exported by the module
 * (not part of the API).
 */
public final class Ranges {
    private Ranges() {
    }

    /** {@code value}; null is refused with {@code E_BAD_VALUE} naming {@code setting}, never a bare NullPointerException. */
    public static <T> T required(String setting, T value) {
        if (value == null) {
            throw dev.turnstile.api.EngineRuntimeException.badArgument(setting, null, "must be set");
        }
        return value;
    }

    /** {@code d}, when it is between {@code min} and {@code max}; else refused with {@code E_BAD_VALUE} naming {@code setting} and the range. */
    public static Duration check(String setting, Duration d, Duration min, Duration max) {
        if (!within(d, min, max)) {
            throw dev.turnstile.api.EngineRuntimeException.badArgument(setting, d, from(min, max));
        }
        return d;
    }

    /** {@code name}, when it is not null or blank; else refused with {@code E_BAD_VALUE} naming {@code setting} and {@code rule}. */
    public static String name(String setting, String name, String rule) {
        if (name == null || name.isBlank()) {
            throw dev.turnstile.api.EngineRuntimeException.badArgument(setting, name, rule);
        }
        return name;
    }

    /** Whether {@code d} is set and between {@code min} and {@code max}, both included. */
    public static boolean within(Duration d, Duration min, Duration max) {
        return d != null && d.compareTo(min) >= 0 && d.compareTo(max) <= 0;
    }

    /** Whether {@code n} is between {@code min} and {@code max}, both included. */
    public static boolean within(long n, long min, long max) {
        return n >= min && n <= max;
    }

    /** The range in words: "from 1ms to 1h". */
    public static String from(Duration min, Duration max) {
        return "from " + text(min) + " to " + text(max);
    }

    /** The range in words: "from 1 to 1,000". */
    public static String from(long min, long max) {
        return "from " + String.format(java.util.Locale.ROOT, "%,d", min) + " to " + String.format(java.util.Locale.ROOT, "%,d", max);
    }

    /** 500ms, 10s, 30m, 24h, 7d: the largest unit that says it exactly. */
    public static String text(Duration d) {
        if (d.isZero()) {
            return "0s";
        }
        long ms = d.toMillis();
        if (ms % 86_400_000 == 0) {
            return ms / 86_400_000 + "d";
        }
        if (ms % 3_600_000 == 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0) {
            return ms / 60_000 + "m";
        }
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }
}
