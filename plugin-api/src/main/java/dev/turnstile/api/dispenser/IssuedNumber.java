package dev.turnstile.api.dispenser;

import java.time.Instant;
import java.util.UUID;

/**
 * A register entry: who took a number, when, for which object, and whether it was voided and why.
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
 */
public record IssuedNumber(String dispenser, String period, long number, String issuedBy, Instant issuedAt,
                           UUID objectId, String voidedBy, String voidReason, long lastNumber) {
    /** An entry of one number. */
    public IssuedNumber(String dispenser, String period, long number, String issuedBy, Instant issuedAt, UUID objectId,
                        String voidedBy, String voidReason) {
        this(dispenser, period, number, issuedBy, issuedAt, objectId, voidedBy, voidReason, number);
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
