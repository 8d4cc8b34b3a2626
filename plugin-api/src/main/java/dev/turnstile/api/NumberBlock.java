package dev.turnstile.api;

/** A contiguous block of numbers from a dispenser: {@code first} … {@code first + count - 1}. */
public record NumberBlock(long first, int count) {
    public long last() {
        return first + count - 1;
    }
}
