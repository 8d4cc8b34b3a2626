package dev.turnstile.engine.objects;

import dev.turnstile.engine.db.Jdbc;
import org.hibernate.StatelessSession;

import java.sql.ResultSet;
import java.time.Instant;
import java.util.UUID;

/**
 * PostgreSQL's object statements: a lock request decided in one {@code UPDATE … RETURNING} (with
 * the row as found when it writes nothing), where a look and a guarded UPDATE left the lock free
 * for a round trip more between one holder's unlock and the next grant (issue 16, item 5).
 */
final class PostgresObjectStatements extends ObjectStatements {
    /** The row written, or (granted false) the row as found. Parameters: the lock update's, then the id. */
    private static final String LOCK = "WITH written AS (" + lockUpdate("PostgreSQL") + """
             RETURNING *)
            SELECT w.*, TRUE AS granted FROM written w
            UNION ALL
            SELECT o.*, FALSE FROM ts_object o WHERE o.id = ? AND NOT EXISTS (SELECT 1 FROM written)""";

    @Override
    boolean locksInOneStatement() {
        return true;
    }

    @Override
    FoundRow lock(StatelessSession session, UUID id, String className, LockRules.Pending pending, String user, Instant now) {
        return Jdbc.run(session, LOCK, statement -> {
            int next = bindLockUpdate(session, statement, id, className, pending, user, now);
            Jdbc.bind(session, statement, next, id, UUID.class);
            try (ResultSet rs = statement.executeQuery()) {
                return foundRow(rs);
            }
        });
    }
}
