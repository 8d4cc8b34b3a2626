package dev.turnstile.engine.dispenser;

import dev.turnstile.api.dispenser.NumberBlock;
import dev.turnstile.engine.db.Database;
import dev.turnstile.engine.db.Sql;
import dev.turnstile.engine.objects.ObjectStoreServices;

import java.util.UUID;

/**
 * The dispenser's statements that a database has of its own, beside the object layer every
 * database shares: none by default; PostgreSQL takes numbers in one statement
 * ({@link PostgresDispenserStatements}).
 */
class DispenserStatements {
    static DispenserStatements of(ObjectStoreServices objects, Database database) {
        return Sql.isPostgres(database.productName()) ? new PostgresDispenserStatements(objects, database) : new DispenserStatements();
    }

    /**
     * The {@code count} numbers taken for {@code user} (or the combined callers {@link Register#issuers}
     * names) in one statement that commits itself, or null, nothing taken, where a take needs the
     * object layer: on this database always; on one with such a statement, inside the host's
     * transaction, while a change feed records writes, or without such a dispenser row.
     */
    NumberBlock take(UUID id, String name, int count, String user) {
        return null;
    }
}
