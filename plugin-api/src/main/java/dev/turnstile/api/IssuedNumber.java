package dev.turnstile.api;

import java.time.Instant;
import java.util.UUID;

/** A register entry: who took a number, when, for which object, and whether it was voided and why. */
public record IssuedNumber(String dispenser, String period, long number, String issuedBy, Instant issuedAt,
                           UUID objectId, String voidedBy, String voidReason) {
    public boolean isVoided() {
        return voidedBy != null;
    }
}
