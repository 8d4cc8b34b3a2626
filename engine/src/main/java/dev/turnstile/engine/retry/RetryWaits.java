package dev.turnstile.engine.retry;

import java.util.function.Supplier;

/**
 * How a retry policy's call waits: the call's scope (the engine's waiters learn when it begins and
 * ends) and the wait before its next attempt after a failure. The engine passes its wake-ups
 * ({@code db/WakeUps}), so that the wait after a refused cooperative lock ends at the holder's unlock.
 */
public interface RetryWaits {
    /** Runs one policy call's attempts and waits. */
    <T> T call(Supplier<T> attempts);

    /** Waits {@code millis} after {@code failure}, or less if what it waited for came sooner. */
    void awaitAfter(Throwable failure, long millis) throws InterruptedException;

    /** Plain sleeps: nothing ends a wait early. */
    RetryWaits SLEEP = new RetryWaits() {
        @Override
        public <T> T call(Supplier<T> attempts) {
            return attempts.get();
        }

        @Override
        public void awaitAfter(Throwable failure, long millis) throws InterruptedException {
            if (millis > 0) {
                Thread.sleep(millis);
            }
        }
    };
}
