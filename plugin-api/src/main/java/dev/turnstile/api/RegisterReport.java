package dev.turnstile.api;

import java.util.List;

/**
 * A dispenser's series for one period: every number from {@code first} to {@code last} is issued,
 * voided (issued and then voided, with a reason) or missing; a complete series has no missing number.
 */
public record RegisterReport(String dispenser, String period, long first, long last, long issued, long voided,
                             List<Long> missing) {
    public boolean isComplete() {
        return missing.isEmpty();
    }
}
