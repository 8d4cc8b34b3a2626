package dev.turnstile.engine.dispenser;

import dev.turnstile.api.ChangeContext;
import dev.turnstile.api.Properties;
import dev.turnstile.api.dispenser.NumberBlock;
import dev.turnstile.api.dispenser.ResetPeriod;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Map;

/**
 * The counter arithmetic every strategy shares. The dispenser object's values hold the last number
 * issued and the period it belongs to. A strategy only moves the counter on by the count it takes
 * ({@link #take}); which period the numbers belong to is decided in one place, {@link #settle}, a
 * preprocessor that runs inside the transaction that writes the counter row, by the database
 * clock read there. A period never goes backwards: a writer whose clock says an earlier period
 * than the stored one numbers in the stored one. The strategy learns its numbers from the values
 * written ({@link #taken}), so a number and its period always come from the same decision.
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
    /** The strategy the dispenser was created with: what a process that names none takes by. */
    static final String STRATEGY = "Strategy";

    private Series() {
    }

    /** The period key of {@code now}: "" (never resets), "2026", "2026-12" or "2026-12-31"; keys sort by time. */
    static String periodKey(ResetPeriod reset, Instant now) {
        if (reset == ResetPeriod.NEVER) {
            return "";
        }
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

    /** The period current at {@code now}: the stored one, or a later one; never an earlier one. */
    static String currentPeriod(Map<String, Object> values, Instant now) {
        return currentPeriod(reset(values), (String) values.get(PERIOD), now);
    }

    private static String currentPeriod(ResetPeriod reset, String stored, Instant now) {
        String byClock = periodKey(reset, now);
        return byClock.compareTo(stored) > 0 ? byClock : stored;
    }

    /** The last number issued in the period current at {@code now}. */
    static long current(Map<String, Object> values, Instant now) {
        return currentPeriod(values, now).equals(values.get(PERIOD)) ? (Long) values.get(COUNTER) : (Long) values.get(START) - 1;
    }

    /** Moves the counter of an instance that holds its values on by {@code count}: pending until its save. */
    static void take(Properties properties, int count) {
        properties.putValue(COUNTER, properties.getInt64Value(COUNTER) + count);
        properties.putValue(ADMIN_ACTION, null);
    }

    /** The same, on the values of a locked row. */
    static void take(Map<String, Object> values, int count) {
        values.put(COUNTER, (Long) values.get(COUNTER) + count);
        values.put(ADMIN_ACTION, null);
    }

    /** Whether a change of a series stored with {@code values} is settled or registered ({@link #settle}, {@link Register#record}). */
    static boolean needsTransaction(Map<String, Object> values) {
        return Boolean.TRUE.equals(values.get(REGISTER)) || !ResetPeriod.NEVER.name().equals(values.get(RESET));
    }

    /**
     * The preprocessor's part: in the transaction writing the counter, decide the period by the
     * transaction's time. A take ({@code Counter} moved on by n from the stored value) that
     * crosses into a new period restarts the series: its n numbers are the new period's first.
     * An admin action keeps its counter and gets the current period.
     */
    static void settle(ChangeContext change) {
        if (change.action() != ChangeContext.Action.UPDATE) {
            return;
        }
        Properties values = change.properties();
        ResetPeriod reset = ResetPeriod.valueOf(values.getStringValue(RESET));
        if (reset == ResetPeriod.NEVER) {
            return;
        }
        String stored = (String) change.originalValue(PERIOD);
        String period = currentPeriod(reset, stored, change.now());
        if (period.equals(stored)) {
            return;
        }
        values.putValue(PERIOD, period);
        if (values.getStringValue(ADMIN_ACTION) == null) {
            long count = values.getInt64Value(COUNTER) - (Long) change.originalValue(COUNTER);
            values.putValue(COUNTER, values.getInt64Value(START) - 1 + count);
        }
    }

    /** The {@code count} numbers a take wrote: the last ones up to the written counter, in the written period. */
    static NumberBlock taken(Map<String, Object> written, int count, Instant writtenAt) {
        return taken((Long) written.get(COUNTER), (String) written.get(PERIOD), count, writtenAt);
    }

    /** The same, from an instance that holds what its save wrote. */
    static NumberBlock taken(Properties written, int count, Instant writtenAt) {
        return taken(written.getInt64Value(COUNTER), written.getStringValue(PERIOD), count, writtenAt);
    }

    /** The {@code count} numbers up to {@code last} in {@code period}, issued on the day of {@code writtenAt}. */
    static NumberBlock taken(long last, String period, int count, Instant writtenAt) {
        return new NumberBlock(last - count + 1, count, period, LocalDate.ofInstant(writtenAt, ZoneOffset.UTC));
    }
}
