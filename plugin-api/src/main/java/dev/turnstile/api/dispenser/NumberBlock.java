package dev.turnstile.api.dispenser;

import java.time.LocalDate;

/**
 * A contiguous block of numbers from a dispenser: {@code first} … {@code first + count - 1}, all of
 * one period ({@code ""} for a series that never resets, else {@code 2026}, {@code 2026-12} or
 * {@code 2026-12-31}), taken on {@code issuedOn} (UTC, by the database's clock). Formatting a number
 * of the block ({@link Dispenser#format(NumberBlock, long)}) uses these, never the clock again.
 */
public record NumberBlock(long first, int count, String period, LocalDate issuedOn) {
    public long last() {
        return first + count - 1;
    }

    public boolean contains(long number) {
        return number >= first && number <= last();
    }
}
