package dev.turnstile.engine.dispenser;

import dev.turnstile.api.EngineRuntimeException;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * A dispenser's turn within this process. Callers queue here (fair: in arrival order) so that one
 * of them at a time works on the counter row, and threads of one process never make each other
 * lose; only other processes remain to race with. It also keeps the newest USN of the counter this
 * process has seen, so a caller whose remembered copy is older reads before it writes instead of losing.
 */
final class LocalTurn {
    private final ReentrantLock lock = new ReentrantLock(true);
    /** The newest USN of the counter this process has read or written, or -1; guarded by {@link #lock}. */
    private long knownUsn = -1;
    /** For first-writer-wins callers; guarded by {@link #lock}. */
    final Escalation escalation = new Escalation(FirstWriterWins.LOST_RACES);

    <T> T run(Supplier<T> work) {
        try {
            lock.lockInterruptibly();
        } catch (InterruptedException e) {
            throw EngineRuntimeException.interrupted("waiting for the dispenser's local queue", e);
        }
        try {
            return work.get();
        } finally {
            lock.unlock();
        }
    }

    /** Only while in {@link #run}. */
    long knownUsn() {
        return knownUsn;
    }

    /** Only while in {@link #run}: -1 when not known. */
    void known(long usn) {
        knownUsn = usn;
    }
}
