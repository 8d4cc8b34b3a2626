package dev.turnstile.engine.config;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses the durations operators write in configuration files: {@code 100ms}, {@code 2s}, {@code 1m}, {@code 1h}, or ISO-8601. */
public final class Durations {
    private static final Pattern SHORT = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

    private Durations() {
    }

    /** The duration, or null if the text is not one. */
    public static Duration parse(String text) {
        if (text == null) {
            return null;
        }
        String t = text.trim();
        Matcher m = SHORT.matcher(t);
        if (m.matches()) {
            try {
                long n = Long.parseLong(m.group(1));
                return switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    case "h" -> Duration.ofHours(n);
                    default -> Duration.ofDays(n);
                };
            } catch (NumberFormatException | ArithmeticException tooLarge) {
                return null; // more than any duration can hold: not a duration, says the caller, naming the key
            }
        }
        try {
            return Duration.parse(t);
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
