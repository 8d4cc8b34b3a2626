package dev.turnstile.engine.db;

import org.hibernate.StatelessSession;

/**
 * Writers of one thing take turns: a transaction that {@link #take}s the turn of a key writes that
 * key's row (a {@link GuardedWrite} with no condition: its USN moves on), so it holds the row's lock
 * until it ends and the next taker's write waits for it. A write, not a {@code SELECT … FOR UPDATE}:
 * on a Galera cluster only writes are certified across nodes. The row is made at the first turn.
 */
public final class Turn {
    private final String table;
    private final String keyColumn;

    /** Turns kept in {@code table}, a row per key in {@code keyColumn}, with a {@code usn} column. */
    public Turn(String table, String keyColumn) {
        this.table = table;
        this.keyColumn = keyColumn;
    }

    /** Takes {@code key}'s turn in the session's transaction: waits for the transaction that has it to end. */
    public void take(StatelessSession session, Object key) {
        if (!GuardedWrite.of(table, keyColumn, key).update(session)) {
            Sql.insertIfAbsent(session, "INSERT INTO " + table + " (" + keyColumn + ", usn) VALUES (?, 0)", key);
            GuardedWrite.of(table, keyColumn, key).update(session);
        }
    }
}
