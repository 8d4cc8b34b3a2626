package dev.turnstile.engine.objects;

import dev.turnstile.engine.db.Database;
import dev.turnstile.engine.db.Sql;
import org.hibernate.StatelessSession;

import java.time.Instant;
import java.util.UUID;

/**
 * The object rows' statements that a database has of its own, beside the guarded writes every
 * database shares ({@code GuardedWrite}): none by default; PostgreSQL decides a lock request in one
 * statement ({@link PostgresObjectStatements}).
 */
class ObjectStatements {
    static ObjectStatements of(String productName) {
        return Sql.isPostgres(productName) ? new PostgresObjectStatements() : new ObjectStatements();
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
    FoundRow lock(Database database, StatelessSession session, UUID id, String className, LockRules.Pending pending,
                  String user, Instant now) {
        throw new UnsupportedOperationException("no lock statement on this database");
    }

    /** A row {@link #lock} returned, and whether it was written. */
    record FoundRow(ObjectRecord row, boolean granted) {
    }
}
