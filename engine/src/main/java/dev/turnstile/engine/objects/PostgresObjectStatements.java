package dev.turnstile.engine.objects;

import dev.turnstile.engine.db.Database;
import dev.turnstile.engine.db.Jdbc;
import dev.turnstile.engine.db.Expiry;
import org.hibernate.StatelessSession;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;

/**
 * PostgreSQL's object statements: a lock request decided in one {@code UPDATE … RETURNING} (with
 * the row as found when it writes nothing), where a look and a guarded UPDATE left the lock free
 * for a round trip more between one holder's unlock and the next grant (issue 16, item 5).
 */
final class PostgresObjectStatements extends ObjectStatements {
    /** FileNet's lock expiry, DateLastModified + LockTimeout, in {@link #LOCK}'s SQL. */
    private static final Expiry LOCK_EXPIRY = Expiry.secondsAfter("date_last_modified", "lock_timeout", "PostgreSQL");

    /**
     * The row written, or (granted false) the row as found. Parameters: user, now, user, now, new
     * token, user, owner, timeout, id, class, user, user, request, now, id.
     */
    private static final String LOCK = """
            WITH written AS (
                UPDATE ts_object SET usn = usn + 1, last_modifier = ?,
                    date_last_modified = GREATEST(date_last_modified, ?),
                    lock_token = CASE WHEN lock_holder = ? AND %s THEN lock_token ELSE ? END,
                    lock_holder = ?, lock_owner = ?, lock_timeout = ?
                WHERE id = ? AND class_name = ? AND (lock_holder IS NULL OR lock_holder = ?
                    OR (lock_holder = ? AND lock_token = ?)
                    OR %s)
                RETURNING *)
            SELECT w.*, TRUE AS granted FROM written w
            UNION ALL
            SELECT o.*, FALSE FROM ts_object o WHERE o.id = ? AND NOT EXISTS (SELECT 1 FROM written)"""
            .formatted(LOCK_EXPIRY.heldAt("?"), LOCK_EXPIRY.lapsedAt("?"));

    @Override
    boolean locksInOneStatement() {
        return true;
    }

    @Override
    FoundRow lock(Database database, StatelessSession session, UUID id, String className, LockRules.Pending pending,
                  String user, Instant now) {
        return Jdbc.run(session, LOCK, statement -> {
            OffsetDateTime at = now.atOffset(ZoneOffset.UTC);
            // LockRules' rule in the WHERE: the lock a request may refresh (none for an exclusive
            // one: NULL matches no holder), and the request's own (an earlier attempt's answer lost).
            Object[] values = {user, at, user, at, pending.request(), user, pending.owner(), pending.timeoutSeconds(),
                    id, className, pending.refreshesLockOf(user), user, pending.request(), at, id};
            for (int i = 0; i < values.length; i++) {
                statement.setObject(i + 1, values[i]);
            }
            try (ResultSet rs = statement.executeQuery()) {
                return rs.next() ? new FoundRow(objectRecord(rs), rs.getBoolean("granted")) : null;
            }
        });
    }

    /** The object row at the result set's cursor (timestamps with time zone). */
    private static ObjectRecord objectRecord(ResultSet rs) throws SQLException {
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
        return r;
    }
}
