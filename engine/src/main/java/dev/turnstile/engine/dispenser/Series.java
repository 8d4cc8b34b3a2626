package dev.turnstile.engine.dispenser;

import dev.turnstile.api.NumberBlock;
import dev.turnstile.api.Properties;
import dev.turnstile.api.ResetPeriod;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Map;

/**
 * The counter arithmetic every strategy shares: the dispenser object's values hold the last
 * number issued and the period it belongs to; taking {@code count} numbers moves the counter on,
 * restarting at the start value when the period (by the engine's clock, UTC) has changed.
 */
final class Series {
    static final String NAME = "DispenserName";
    static final String COUNTER = "Counter";
    static final String PERIOD = "Period";
    static final String START = "StartValue";
    static final String FORMAT = "Format";
    static final String RESET = "ResetPeriod";
    static final String REGISTER = "RegisterIssued";
    static final String ADMIN_ACTION = "AdminAction";

    private Series() {
    }

    /** The numbers taken and the period they belong to. */
    record Taken(NumberBlock block, String period) {
    }

    static String periodKey(ResetPeriod reset, Instant now) {
        LocalDate day = LocalDate.ofInstant(now, ZoneOffset.UTC);
        return switch (reset) {
            case NEVER -> "";
            case YEARLY -> String.format("%04d", day.getYear());
            case MONTHLY -> String.format("%04d-%02d", day.getYear(), day.getMonthValue());
            case DAILY -> day.toString();
        };
    }

    static ResetPeriod reset(Map<String, Object> values) {
        return ResetPeriod.valueOf((String) values.get(RESET));
    }

    /** The last number issued in the period current at {@code now}. */
    static long current(Map<String, Object> values, Instant now) {
        String period = periodKey(reset(values), now);
        return period.equals(values.get(PERIOD)) ? (Long) values.get(COUNTER) : (Long) values.get(START) - 1;
    }

    /** Takes {@code count} numbers on an instance holding the counter: its changed values become pending. */
    static Taken take(Properties properties, int count, Instant now) {
        Map<String, Object> values = properties.toMap();
        Taken taken = take(values, count, now);
        for (String changed : new String[] {COUNTER, PERIOD, ADMIN_ACTION}) {
            properties.putValue(changed, values.get(changed));
        }
        return taken;
    }

    /** Takes {@code count} numbers: changes {@code values} in place and says which numbers they are. */
    static Taken take(Map<String, Object> values, int count, Instant now) {
        String period = periodKey(reset(values), now);
        long last = current(values, now);
        values.put(COUNTER, last + count);
        values.put(PERIOD, period);
        values.put(ADMIN_ACTION, null);
        return new Taken(new NumberBlock(last + 1, count), period);
    }
}
