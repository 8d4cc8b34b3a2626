package dev.turnstile.api.dispenser;

import java.time.Instant;
import java.util.UUID;

/**
 * A register entry: who took a number, when, for which object, whether it was voided and why, and
 * whether it is in doubt (taken, but perhaps never received by its caller).
 * Numbers an admin skipped ({@code setStart} past the current number) are one voided entry for the
 * whole range, from {@code number} to {@code lastNumber}; any other entry has one number.
 *
 * @param dispenser the dispenser's name
 * @param period the series' period ({@code ""} if it never resets)
 * @param number the number (the first of a skipped range)
 * @param issuedBy the user whose session took it
 * @param issuedAt when, by the database clock
 * @param objectId the object it numbered, or null
 * @param voidedBy who voided it, or null
 * @param voidReason why, or null
 * @param lastNumber the last number of a skipped range; else {@code number}
 * @param inDoubt whether the number's take committed but its answer is not known to have reached the
 *        caller: the caller's process died, or its call gave up or took another number after an outage
 *        cut the answer; only a plain {@link Dispenser#next()} leaves one (for a moment while its
 *        engine confirms it; an object's number, a keyed request's and the host transaction's never)
 */
public record IssuedNumber(String dispenser, String period, long number, String issuedBy, Instant issuedAt,
                           UUID objectId, String voidedBy, String voidReason, long lastNumber, boolean inDoubt) {
    /** An entry of one number, not in doubt. */
    public IssuedNumber(String dispenser, String period, long number, String issuedBy, Instant issuedAt, UUID objectId,
                        String voidedBy, String voidReason) {
        this(dispenser, period, number, issuedBy, issuedAt, objectId, voidedBy, voidReason, number, false);
    }

    /** An entry not in doubt. */
    public IssuedNumber(String dispenser, String period, long number, String issuedBy, Instant issuedAt, UUID objectId,
                        String voidedBy, String voidReason, long lastNumber) {
        this(dispenser, period, number, issuedBy, issuedAt, objectId, voidedBy, voidReason, lastNumber, false);
    }

    /** How many numbers the entry stands for: 1, or a skipped range's length. */
    public long count() {
        return lastNumber - number + 1;
    }

    /** Whether the number was voided. */
    public boolean isVoided() {
        return voidedBy != null;
    }
}
