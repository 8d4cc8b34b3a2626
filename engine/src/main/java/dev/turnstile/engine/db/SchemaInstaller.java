package dev.turnstile.engine.db;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import org.hibernate.SessionFactory;
import org.hibernate.relational.SchemaManager;

/**
 * Hibernate's schema update (run while the session factory is built) creates missing tables and
 * columns. Several processes may open a new database at the same moment: the losers of that race
 * only log "already exists", so each then waits, briefly, until the schema the winner is still
 * creating validates.
 */
final class SchemaInstaller {
    private static final int ATTEMPTS = 50;
    private static final long PAUSE_MILLIS = 100;

    private SchemaInstaller() {
    }

    static void awaitValidSchema(SessionFactory sessionFactory, String url) {
        SchemaManager schema = sessionFactory.getSchemaManager();
        RuntimeException last = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try {
                schema.validateMappedObjects();
                return;
            } catch (RuntimeException invalid) {
                last = invalid;
            }
            try {
                Thread.sleep(PAUSE_MILLIS);
            } catch (InterruptedException e) {
                throw EngineRuntimeException.interrupted("waiting for the schema", e);
            }
        }
        throw EngineRuntimeException.of(ExceptionCode.E_DATABASE_UNAVAILABLE,
                "The Turnstile schema in " + url + " does not validate: " + last.getMessage(), last);
    }
}
