package dev.turnstile.api.dispenser;

import java.time.LocalDate;

/**
 * A contiguous block of numbers from a dispenser: {@code first} … {@code first + count - 1}, all of
 * one period ({@code ""} for a series that never resets, else {@code 2026}, {@code 2026-12} or
 * {@code 2026-12-31}), taken on {@code issuedOn} (UTC, by the database's clock). Formatting a number
 * of the block ({@link Dispenser#format(NumberBlock, long)}) uses these, never the clock again.
 *
 * @param first the first number
 * @param count how many numbers
 * @param period the series' period
 * @param issuedOn the day it was taken (UTC, database clock)
 */
public record NumberBlock(long first, int count, String period, LocalDate issuedOn) {
    /** The last number of the block. */
    public long last() {
        return first + count - 1;
    }

    /** Whether {@code number} belongs to this block. */
    public boolean contains(long number) {
        return number >= first && number <= last();
    }
}
