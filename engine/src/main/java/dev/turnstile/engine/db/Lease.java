package dev.turnstile.engine.db;

import java.time.Instant;

/**
 * The one lease: a row held by one holder until an expiry. Taking, renewing, releasing and expiring
 * it are {@link GuardedWrite}s whose WHERE clause decides, in the statement that acts, whether the
 * lease is free, the caller's, or lapsed at {@code now} — the database clock's reading, never a
 * node's wall clock ({@link Database#now()}). Capabilities that decide validity from the row by
 * richer rules (the edit-lock paper's four) read it in the transaction and write with
 * {@link #guarded}, so the decision holds only if nobody wrote the row in between.
 *
 * <p>{@code holderColumn} may be null for a table whose rows are the leases themselves (a row per
 * lease, keyed by its id): there "holding" is the row existing, and release and expire delete it.
 */
public final class Lease {
    private final String table;
    private final String keyColumn;
    private final String holderColumn;
    private final String expiryColumn;
    private final Expiry expiry;

    public Lease(String table, String keyColumn, String holderColumn, String expiryColumn) {
        this.table = table;
        this.keyColumn = keyColumn;
        this.holderColumn = holderColumn;
        this.expiryColumn = expiryColumn;
        this.expiry = Expiry.in(expiryColumn);
    }

    /** The SQL condition "free, held by {@code :holder}, or lapsed at {@code :now}", for statements that embed it. */
    public String freeMineOrLapsed(String holderParameter, String nowParameter) {
        return holderColumn + " IS NULL OR " + holderColumn + " = " + holderParameter + " OR " + expiry.lapsedAt(nowParameter);
    }

    /**
     * Takes the lease for {@code holder} until {@code until} if at {@code now} it is free, already the
     * holder's, or lapsed. {@code orIf} widens that (a waiter with priority); null for none.
     */
    public GuardedWrite take(Object key, String holder, Instant until, Instant now, String orIf, Object... orIfValues) {
        String condition = freeMineOrLapsed("?", "?") + (orIf == null ? "" : " OR " + orIf);
        Object[] values = new Object[2 + orIfValues.length];
        values[0] = holder;
        values[1] = now;
        System.arraycopy(orIfValues, 0, values, 2, orIfValues.length);
        return GuardedWrite.of(table, keyColumn, key).set(holderColumn, holder).set(expiryColumn, until)
                .where(condition, values);
    }

    /** Extends a lease that is live at {@code now} (and, with a holder column, the holder's) to {@code until}. */
    public GuardedWrite renew(Object key, String holder, Instant until, Instant now) {
        GuardedWrite write = GuardedWrite.of(table, keyColumn, key).set(expiryColumn, until).where(expiry.heldAt("?"), now);
        return holderColumn == null ? write : write.where(holderColumn + " = ?", holder);
    }

    /**
     * Lets the holder's lease go: clears holder and expiry ({@link GuardedWrite#update}); for a row
     * per lease, {@link GuardedWrite#delete} it.
     */
    public GuardedWrite release(Object key, String holder) {
        GuardedWrite write = GuardedWrite.of(table, keyColumn, key);
        return holderColumn == null ? write : write.set(holderColumn, null, String.class).set(expiryColumn, null, Instant.class)
                .where(holderColumn + " = ?", holder);
    }

    /** Takes back a lease that lapsed before {@code now}, whoever held it (a reaper): one reaper wins. */
    public GuardedWrite expire(Object key, Instant now) {
        GuardedWrite write = GuardedWrite.of(table, keyColumn, key).where(expiry.lapsedAt("?"), now);
        return holderColumn == null ? write : write.set(holderColumn, null, String.class).set(expiryColumn, null, Instant.class);
    }

    /** Ends a lease that is live at {@code now}, whoever holds it (an operator's break): a lapsed one is the reaper's. */
    public GuardedWrite breakLive(Object key, Instant now) {
        GuardedWrite write = GuardedWrite.of(table, keyColumn, key).where(expiry.heldAt("?"), now);
        return holderColumn == null ? write : write.set(holderColumn, null, String.class).set(expiryColumn, null, Instant.class);
    }

    /** A write of the row guarded by the USN the caller read it with (validity decided on that reading). */
    public GuardedWrite guarded(Object key, long usn) {
        return GuardedWrite.of(table, keyColumn, key).ifUsn(usn);
    }
}
