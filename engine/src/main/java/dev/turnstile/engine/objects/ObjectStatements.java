package dev.turnstile.engine.objects;

import dev.turnstile.engine.db.Expiry;
import dev.turnstile.engine.db.Jdbc;
import dev.turnstile.engine.db.Sql;
import org.hibernate.StatelessSession;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * The object rows' statements that a database has of its own, beside the guarded writes every
 * database shares ({@code GuardedWrite}): none by default (MariaDB has no {@code UPDATE … RETURNING});
 * where the database returns the rows an UPDATE wrote, a lock request is decided in one statement
 * ({@link PostgresObjectStatements}, {@link H2ObjectStatements}), its rule stated once here
 * ({@link #lockUpdate}).
 */
class ObjectStatements {
    static ObjectStatements of(String productName) {
        return Sql.isPostgres(productName) ? new PostgresObjectStatements()
                : Sql.isH2(productName) ? new H2ObjectStatements() : new ObjectStatements();
    }

    /** Whether a lock request that carries nothing else is decided in one statement ({@link #lock}). */
    boolean locksInOneStatement() {
        return false;
    }

    /**
     * A lock request by {@code user} at {@code now} in one statement: an {@code UPDATE} whose
     * {@code WHERE} holds {@link LockRules}' rule, and the row as written (granted) or, if it wrote
     * nothing, as found; null if there is no such row. Only where {@link #locksInOneStatement}.
     */
    FoundRow lock(StatelessSession session, UUID id, String className, LockRules.Pending pending, String user, Instant now) {
        throw new UnsupportedOperationException("no lock statement on this database");
    }

    /** A row {@link #lock} returned, and whether it was written. */
    record FoundRow(ObjectRecord row, boolean granted) {
    }

    /**
     * {@link LockRules}' rule as the {@code UPDATE} of a lock request, in the SQL of the database
     * named by {@code productName}: the row is written if its lock is free, the caller's, or lapsed at
     * the request's time (DateLastModified + LockTimeout before it, {@link Expiry}), as the request's
     * lock (holder, owner, timeout; the token kept on a refresh of a lock still held), USN one on.
     * Parameters: {@link #bindLockUpdate}.
     */
    static String lockUpdate(String productName) {
        Expiry expiry = Expiry.secondsAfter("date_last_modified", "lock_timeout", productName);
        return """
                UPDATE ts_object SET usn = usn + 1, last_modifier = ?,
                    date_last_modified = GREATEST(date_last_modified, ?),
                    lock_token = CASE WHEN lock_holder = ? AND %s THEN lock_token ELSE ? END,
                    lock_holder = ?, lock_owner = ?, lock_timeout = ?
                WHERE id = ? AND class_name = ? AND (lock_holder IS NULL OR lock_holder = ?
                    OR (lock_holder = ? AND lock_token = ?)
                    OR %s)""".formatted(expiry.heldAt("?"), expiry.lapsedAt("?"));
    }

    /**
     * Binds {@link #lockUpdate}'s parameters from the first; the next parameter's index. LockRules'
     * rule in the WHERE: the lock a request may refresh (none for an exclusive one: NULL matches no
     * holder), and the request's own (an earlier attempt's answer lost).
     */
    static int bindLockUpdate(StatelessSession session, PreparedStatement statement, UUID id, String className,
                              LockRules.Pending pending, String user, Instant now) throws SQLException {
        Object[] values = {user, now, user, now, pending.request(), user, pending.owner(), pending.timeoutSeconds(),
                id, className, pending.refreshesLockOf(user), user, pending.request(), now};
        Class<?>[] types = {String.class, Instant.class, String.class, Instant.class, UUID.class, String.class, String.class,
                Integer.class, UUID.class, String.class, String.class, String.class, UUID.class, Instant.class};
        for (int i = 0; i < values.length; i++) {
            Jdbc.bind(session, statement, i + 1, values[i], types[i]);
        }
        return values.length + 1;
    }

    /** The row at the result set's cursor, and its {@code granted} column; null past the last row. */
    static FoundRow foundRow(ResultSet rs) throws SQLException {
        if (!rs.next()) {
            return null;
        }
        ObjectRecord r = new ObjectRecord();
        r.id = rs.getObject("id", UUID.class);
        r.className = rs.getString("class_name");
        r.usn = rs.getLong("usn");
        r.creator = rs.getString("creator");
        r.dateCreated = rs.getObject("date_created", OffsetDateTime.class).toInstant();
        r.lastModifier = rs.getString("last_modifier");
        r.dateLastModified = rs.getObject("date_last_modified", OffsetDateTime.class).toInstant();
        r.propValues = rs.getString("prop_values");
        r.lockHolder = rs.getString("lock_holder");
        r.lockOwner = rs.getString("lock_owner");
        r.lockToken = rs.getObject("lock_token", UUID.class);
        r.lockTimeout = rs.getObject("lock_timeout", Integer.class);
        return new FoundRow(r, rs.getBoolean("granted"));
    }
}
