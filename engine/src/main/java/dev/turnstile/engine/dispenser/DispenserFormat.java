package dev.turnstile.engine.dispenser;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.dispenser.ResetPeriod;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A number format such as {@code INV-{yyyy}-{seq:6}}: literal text, date fields {@code {yyyy}},
 * {@code {yy}}, {@code {MM}}, {@code {dd}} (of the day the number is issued, UTC) and exactly one
 * {@code {seq}} or {@code {seq:N}} (zero-padded to N digits).
 */
final class DispenserFormat {
    private static final Pattern FIELD = Pattern.compile("\\{([^{}]*)}");
    private static final String FIELDS = "{yyyy} {yy} {MM} {dd} {seq} {seq:N}";

    private final List<BiFunction<Long, LocalDate, String>> parts;

    private DispenserFormat(List<BiFunction<Long, LocalDate, String>> parts) {
        this.parts = parts;
    }

    /**
     * Parses a pattern; null means plain numbers. A series that resets must show the date down to
     * its period, or its numbers repeat: {@code INV-{seq:6}} restarting every year would issue
     * INV-000001 each January. Errors name the dispenser, the pattern and what is wrong.
     */
    static DispenserFormat parse(String dispenser, String pattern, ResetPeriod reset) {
        return parse(pattern, reset, (p, rule) -> EngineRuntimeException.badArgument("format of dispenser " + dispenser, p, rule));
    }

    /** The same, with {@code bad} making the error of a bad pattern from the pattern and the rule it breaks. */
    static DispenserFormat parse(String pattern, ResetPeriod reset, BiFunction<String, String, RuntimeException> bad) {
        if (pattern == null) {
            return new DispenserFormat(List.of((n, d) -> Long.toString(n)));
        }
        List<BiFunction<Long, LocalDate, String>> parts = new ArrayList<>();
        Matcher m = FIELD.matcher(pattern);
        int at = 0;
        int sequences = 0;
        while (m.find()) {
            String literal = pattern.substring(at, m.start());
            checkLiteral(bad, pattern, literal);
            if (!literal.isEmpty()) {
                parts.add((n, d) -> literal);
            }
            String field = m.group(1);
            switch (field) {
                case "yyyy" -> parts.add((n, d) -> String.format("%04d", d.getYear()));
                case "yy" -> parts.add((n, d) -> String.format("%02d", d.getYear() % 100));
                case "MM" -> parts.add((n, d) -> String.format("%02d", d.getMonthValue()));
                case "dd" -> parts.add((n, d) -> String.format("%02d", d.getDayOfMonth()));
                default -> {
                    parts.add(sequence(bad, pattern, field));
                    sequences++;
                }
            }
            at = m.end();
        }
        String tail = pattern.substring(at);
        checkLiteral(bad, pattern, tail);
        if (!tail.isEmpty()) {
            parts.add((n, d) -> tail);
        }
        if (sequences != 1) {
            throw bad.apply(pattern, "must contain {seq} or {seq:N} exactly once");
        }
        boolean year = pattern.contains("{yyyy}") || pattern.contains("{yy}");
        String missing = switch (reset) {
            case NEVER -> null;
            case YEARLY -> year ? null : "{yyyy} or {yy}";
            case MONTHLY -> year && pattern.contains("{MM}") ? null : "the year ({yyyy} or {yy}) and {MM}";
            case DAILY -> year && pattern.contains("{MM}") && pattern.contains("{dd}") ? null
                    : "the year ({yyyy} or {yy}), {MM} and {dd}";
        };
        if (missing != null) {
            throw bad.apply(pattern, "the series restarts " + reset.name().toLowerCase(java.util.Locale.ROOT)
                    + ", so the format must contain " + missing + " or its numbers repeat from one period to the next");
        }
        return new DispenserFormat(parts);
    }

    private static BiFunction<Long, LocalDate, String> sequence(BiFunction<String, String, RuntimeException> bad, String pattern,
            String field) {
        if (field.equals("seq")) {
            return (n, d) -> Long.toString(n);
        }
        if (field.matches("seq:\\d{1,2}")) {
            int width = Integer.parseInt(field.substring(4));
            if (width >= 1 && width <= 19) {
                return (n, d) -> String.format("%0" + width + "d", n);
            }
        }
        throw bad.apply(pattern, "unknown field {" + field + "}; fields are " + FIELDS + " (N from 1 to 19)");
    }

    private static void checkLiteral(BiFunction<String, String, RuntimeException> bad, String pattern, String literal) {
        if (literal.indexOf('{') >= 0 || literal.indexOf('}') >= 0) {
            throw bad.apply(pattern, "unbalanced braces");
        }
    }

    String format(long number, LocalDate day) {
        StringBuilder out = new StringBuilder();
        for (BiFunction<Long, LocalDate, String> part : parts) {
            out.append(part.apply(number, day));
        }
        return out.toString();
    }
}
