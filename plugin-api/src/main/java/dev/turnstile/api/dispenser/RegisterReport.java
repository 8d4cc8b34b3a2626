package dev.turnstile.api.dispenser;

import java.util.List;

/**
 * A dispenser's series for one period: every number from {@code first} to {@code last} is issued,
 * voided (issued and then voided, with a reason, or skipped by an admin) or missing; a complete
 * series has no missing number. The counts cover the whole period; {@code missing} lists the
 * missing ranges in order, as many as were asked for from the number asked for
 * ({@link Dispenser#report(long, int)}), so a report costs the same however long the series.
 *
 * @param dispenser the dispenser's name
 * @param period the period reported
 * @param first the lowest number issued in it
 * @param last the highest number issued in it
 * @param issued numbers issued and not voided
 * @param voided numbers voided
 * @param missingCount numbers between first and last the register lacks
 * @param missing the missing ranges, in order, as many as asked for
 */
public record RegisterReport(String dispenser, String period, long first, long last, long issued, long voided,
                             long missingCount, List<NumberRange> missing) {
    public RegisterReport {
        missing = List.copyOf(missing);
    }

    /** Whether no number is missing. */
    public boolean isComplete() {
        return missingCount == 0;
    }
}
