package dev.turnstile.api.dispenser;

/**
 * How a {@link Dispenser} takes its next number. All are correct across threads, processes and
 * machines; they differ in round trips and in how they behave under contention.
 */
public enum DispenserStrategy {
    /** Lock the counter with retry, read, increment, then update + unlock: 2 round trips per number. */
    COOPERATIVE_LOCK,
    /**
     * Update blindly with the USN remembered from the last success: 1 round trip uncontended, 3
     * after a conflict (failed update, fetch, update). With {@code feelingUnlucky}: fetch first
     * every time, 2 round trips.
     */
    FIRST_WRITER_WINS,
    /** Read the counter row FOR UPDATE and update it in one transaction: 1 round trip, waiters queue on the row. */
    PESSIMISTIC,
    /**
     * Concurrent callers in one process share one first-writer-wins update of +N and each gets its
     * numbers from the block; across processes the USN check keeps it correct.
     */
    COMBINING
}
