package dev.turnstile.engine.db;

import java.time.Instant;

/**
 * The one rule every lease, lock and lapse of the engine is judged by: a lease is <em>held</em> at
 * a moment while its expiry is not before that moment, and <em>lapsed</em> once its expiry is before
 * it — at the expiry itself it is still held. Java code asks {@link #isHeld}/{@link #isLapsed} of a
 * row it read; a statement that decides embeds {@link #heldAt}/{@link #lapsedAt}, built here from
 * the expiry's column or expression, so the two can never disagree on the boundary. The moment is
 * always the database's time ({@link Database#now()}, a parameter bound from it, or the
 * statement's {@code CURRENT_TIMESTAMP}), never a node's wall clock.
 */
public final class Expiry {
    private final String expression;

    private Expiry(String expression) {
        this.expression = expression;
    }

    /** An expiry stored in a column (or named by an attribute, in a JPQL query). */
    public static Expiry in(String column) {
        return new Expiry(column);
    }

    /**
     * An expiry {@code secondsColumn} seconds after {@code startColumn} — FileNet's lock expiry,
     * DateLastModified + LockTimeout — in the SQL of the database named by {@code productName}.
     */
    public static Expiry secondsAfter(String startColumn, String secondsColumn, String productName) {
        return new Expiry(Sql.isPostgres(productName) ? "(" + startColumn + " + " + secondsColumn + " * INTERVAL '1 second')"
                : "TIMESTAMPADD(SECOND, " + secondsColumn + ", " + startColumn + ")");
    }

    /** The SQL condition "held at {@code now}" ({@code now}: a parameter or an expression). */
    public String heldAt(String now) {
        return expression + " >= " + now;
    }

    /** The SQL condition "lapsed at {@code now}". */
    public String lapsedAt(String now) {
        return expression + " < " + now;
    }

    /** Whether a lease expiring at {@code expiry} is held at {@code now}; never without an expiry. */
    public static boolean isHeld(Instant expiry, Instant now) {
        return expiry != null && !expiry.isBefore(now);
    }

    /** Whether a lease expiring at {@code expiry} has lapsed at {@code now}; never without an expiry. */
    public static boolean isLapsed(Instant expiry, Instant now) {
        return expiry != null && expiry.isBefore(now);
    }

    @Override
    public String toString() {
        return expression;
    }
}
