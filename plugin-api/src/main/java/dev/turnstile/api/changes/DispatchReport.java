package dev.turnstile.api.changes;

/**
 * What one dispatcher pass did: the client it served (null if none was behind and free), the
 * changes it read, how many matched the client's filter, how many it delivered after coalescing,
 * and the client's new position.
 *
 * @param client the client served, or null if none was behind and free
 * @param read changes read from the log
 * @param matched changes its filter let through
 * @param delivered changes delivered, after coalescing
 * @param position the client's new position
 */
public record DispatchReport(String client, int read, int matched, int delivered, long position) {
    /** A pass that found no client behind and free. */
    public static final DispatchReport IDLE = new DispatchReport(null, 0, 0, 0, -1);

    /** Whether the pass served no client. */
    public boolean isIdle() {
        return client == null;
    }
}
