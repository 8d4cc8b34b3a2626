package dev.turnstile.engine.objects;

import dev.turnstile.engine.db.Jdbc;
import org.hibernate.StatelessSession;

import java.sql.ResultSet;
import java.time.Instant;
import java.util.UUID;

/**
 * H2's object statements: a lock request decided in one {@code UPDATE}, whose written row H2 returns
 * ({@code FINAL TABLE}); only a refusal reads the row as found, in a second statement, to tell it. A
 * look and a guarded UPDATE in a transaction held H2's snapshot (REPEATABLE READ) across both, so an
 * unlock of the row between them aborted the request, which ran again.
 */
final class H2ObjectStatements extends ObjectStatements {
    private static final String LOCK = "SELECT *, TRUE AS granted FROM FINAL TABLE (" + lockUpdate("H2") + ")";
    private static final String FOUND = "SELECT *, FALSE AS granted FROM ts_object WHERE id = ?";

    @Override
    boolean locksInOneStatement() {
        return true;
    }

    @Override
    FoundRow lock(StatelessSession session, UUID id, String className, LockRules.Pending pending, String user, Instant now) {
        FoundRow written = Jdbc.run(session, LOCK, statement -> {
            bindLockUpdate(session, statement, id, className, pending, user, now);
            try (ResultSet rs = statement.executeQuery()) {
                return foundRow(rs);
            }
        });
        return written != null ? written : Jdbc.run(session, FOUND, statement -> {
            Jdbc.bind(session, statement, 1, id, UUID.class);
            try (ResultSet rs = statement.executeQuery()) {
                return foundRow(rs);
            }
        });
    }
}
