package dev.turnstile.api;

import java.util.Locale;

/**
 * Which held locks to list, in which order, and which page of them: one query for every kind —
 * edit locks ({@link dev.turnstile.api.editlock.EditLocks#heldLocks}), tree locks
 * ({@link dev.turnstile.api.treelock.TreeLocks#status(LockQuery)}) and cooperative locks
 * ({@link ObjectStore#lockedObjects}). The database filters, counts, orders and cuts the page, so
 * a page costs about the same with a thousand locks as with a hundred thousand.
 *
 * <pre>{@code
 * LockPage<EditLock> page = editLocks.heldLocks(LockQuery.first(50).holder("alice").contains("wiki:"));
 * page.total();   // every lock of alice's on a wiki article, not only the 50 shown
 * }</pre>
 *
 * @param holder    only the locks of this user; null: everyone's
 * @param contains  only locks whose locked thing's name contains this text (an edit resource such as
 *                  {@code wiki:welcome}, a tree node path, an object's class — or an object's id); null: all
 * @param lockToken only the lock with this token (a lock id from an error message, say); null: any
 * @param order     the order of the rows
 * @param offset    how many rows to skip: 0 for the first page
 * @param limit     the most rows on the page, 1 to {@value #MAX_LIMIT}
 */
public record LockQuery(String holder, String contains, String lockToken, Order order, int offset, int limit) {
    /** The most rows of one page. */
    public static final int MAX_LIMIT = 10_000;
    /** The longest text to look for. */
    public static final int MAX_TEXT = 200;

    /** The order of a page's rows. */
    public enum Order {
        /** Oldest first: by when the lock was taken (a cooperative lock: its object's last save). */
        OLDEST,
        /** Newest first. */
        NEWEST,
        /** By holder, then oldest first. */
        HOLDER,
        /** By what is locked (resource, nodes, class and id), then oldest first. */
        WHAT;

        /** The order named {@code name} ({@code oldest}, {@code newest}, {@code holder}, {@code what}, any case). */
        public static Order parse(String name) {
            try {
                return valueOf(name.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException | NullPointerException e) {
                throw EngineRuntimeException.badArgument("lock order", name, "one of oldest, newest, holder, what");
            }
        }
    }

    /** Checks the bounds; a blank filter is no filter. Fails with {@link ExceptionCode#E_BAD_VALUE} naming the field. */
    public LockQuery {
        holder = text("holder", holder);
        contains = text("contains", contains);
        lockToken = text("lockToken", lockToken);
        if (order == null) {
            throw EngineRuntimeException.badArgument("lock query order", null, "one of oldest, newest, holder, what");
        }
        if (offset < 0) {
            throw EngineRuntimeException.badArgument("lock query offset", offset, "0 or more");
        }
        if (limit < 1 || limit > MAX_LIMIT) {
            throw EngineRuntimeException.badArgument("lock query limit", limit, "1 to " + MAX_LIMIT);
        }
    }

    private static String text(String field, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        if (value.length() > MAX_TEXT) {
            throw EngineRuntimeException.badArgument("lock query " + field, value.substring(0, 20) + "…",
                    "at most " + MAX_TEXT + " characters");
        }
        return value.trim();
    }

    /** The first {@code limit} locks of everyone's, oldest first. */
    public static LockQuery first(int limit) {
        return new LockQuery(null, null, null, Order.OLDEST, 0, limit);
    }

    /** This query, for {@code holder}'s locks only. */
    public LockQuery holder(String holder) {
        return new LockQuery(holder, contains, lockToken, order, offset, limit);
    }

    /** This query, for locks on things whose name contains {@code text}. */
    public LockQuery contains(String text) {
        return new LockQuery(holder, text, lockToken, order, offset, limit);
    }

    /** This query, for the lock {@code lockToken} only. */
    public LockQuery lockToken(String lockToken) {
        return new LockQuery(holder, contains, lockToken, order, offset, limit);
    }

    /** This query, in {@code order}. */
    public LockQuery order(Order order) {
        return new LockQuery(holder, contains, lockToken, order, offset, limit);
    }

    /** This query, from row {@code offset} on. */
    public LockQuery offset(int offset) {
        return new LockQuery(holder, contains, lockToken, order, offset, limit);
    }
}
