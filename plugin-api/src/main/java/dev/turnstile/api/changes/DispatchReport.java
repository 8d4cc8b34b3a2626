package dev.turnstile.api.changes;

/**
 * What one dispatcher pass did: the client it served (null if none was behind and free), the
 * changes it read, how many matched the client's filter, how many it delivered after coalescing,
 * and the client's new position.
 */
public record DispatchReport(String client, int read, int matched, int delivered, long position) {
    public static final DispatchReport IDLE = new DispatchReport(null, 0, 0, 0, -1);

    public boolean isIdle() {
        return client == null;
    }
}
