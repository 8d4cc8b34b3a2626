package dev.turnstile.engine.objects;

/**
 * A lock taken on a plain look found the row changed at its guarded write: the transaction rolls
 * back and the save looks again, up to {@code LOOKS} times, then reads FOR UPDATE.
 */
final class LookAgain extends RuntimeException {
    /** Looks per save: each lost race means another writer made progress; past them the row lock decides. */
    static final int LOOKS = 3;
    static final LookAgain INSTANCE = new LookAgain();

    private LookAgain() {
        super("a lock taken on a plain look lost its race", null, false, false);
    }
}
