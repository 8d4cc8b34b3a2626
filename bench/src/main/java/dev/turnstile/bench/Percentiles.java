package dev.turnstile.bench;

import java.util.Arrays;

/** Percentiles of measured durations (nanoseconds in, milliseconds out), by the nearest-rank method. */
final class Percentiles {
    private final long[] sorted;

    Percentiles(long[] nanos) {
        this.sorted = nanos.clone();
        Arrays.sort(sorted);
    }

    /** The {@code q}-quantile (0 < q ≤ 1) in milliseconds. */
    double millis(double q) {
        return sorted[Math.max(0, (int) Math.ceil(sorted.length * q) - 1)] / 1e6;
    }

    int count() {
        return sorted.length;
    }
}
