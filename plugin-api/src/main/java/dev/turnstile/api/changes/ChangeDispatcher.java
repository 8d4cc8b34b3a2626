package dev.turnstile.api.changes;

/**
 * Moves changes to clients. Any number of dispatchers, in any processes, share the clients without
 * knowing about each other: each pass takes one client that is behind and not held by another live
 * dispatcher, with a lease, and gives it back with its new position.
 */
public interface ChangeDispatcher extends AutoCloseable {
    /** One pass, on the calling thread. */
    DispatchReport runOnce();

    /** Runs passes on a thread of its own, with the configured delay when there was nothing to do. */
    void start();

    /** Stops the thread after its current pass. */
    void stop();

    /** The dispatcher's name, unique among the dispatchers sharing the feed. */
    String name();

    /** True while its thread runs passes: started, not stopped, and not past its maximum run time. */
    boolean isRunning();

    /** Passes that failed in a row, up to the last one (0 once a pass works again). */
    int failedPasses();

    @Override
    default void close() {
        stop();
    }
}
