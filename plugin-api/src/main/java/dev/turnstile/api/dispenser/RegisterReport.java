package dev.turnstile.api.dispenser;

import java.util.List;

/**
 * A dispenser's series for one period: every number from {@code first} to {@code last} is issued,
 * voided (issued and then voided, with a reason, or skipped by an admin) or missing; a complete
 * series has no missing number. Issued numbers in doubt — taken, but perhaps never received by the
 * caller — are counted and listed apart. The counts cover the whole period; {@code missing} lists the
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
 * @param inDoubt issued numbers (not voided) in doubt: taken, their answer perhaps never received
 *        ({@link IssuedNumber#inDoubt()}); an auditor looks for each one's document, and voids it
 *        with a reason where there is none
 * @param numbersInDoubt those numbers' entries, in order, from the number asked for, as many as asked for
 */
public record RegisterReport(String dispenser, String period, long first, long last, long issued, long voided,
                             long missingCount, List<NumberRange> missing, long inDoubt, List<IssuedNumber> numbersInDoubt) {
    public RegisterReport {
        missing = List.copyOf(missing);
        numbersInDoubt = List.copyOf(numbersInDoubt);
    }

    /** A report with no number in doubt. */
    public RegisterReport(String dispenser, String period, long first, long last, long issued, long voided,
                          long missingCount, List<NumberRange> missing) {
        this(dispenser, period, first, last, issued, voided, missingCount, missing, 0, List.of());
    }

    /** Whether no number is missing. */
    public boolean isComplete() {
        return missingCount == 0;
    }

    /** Whether no number is missing or in doubt: each one issued was received by its caller, or voided. */
    public boolean isAccountedFor() {
        return missingCount == 0 && inDoubt == 0;
    }
}
