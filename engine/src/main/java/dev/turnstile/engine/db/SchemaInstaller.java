package dev.turnstile.engine.db;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import org.hibernate.SessionFactory;
import org.hibernate.relational.SchemaManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the tables at first open and validates them on every open. Several processes may open a
 * new database at the same moment: each tries to create what is missing, ignores the "already
 * exists" failures of losing that race, and then must see a schema that validates.
 */
final class SchemaInstaller {
    private static final Logger log = LoggerFactory.getLogger(SchemaInstaller.class);
    private static final int ATTEMPTS = 20;
    private static final long PAUSE_MILLIS = 100;

    private SchemaInstaller() {
    }

    static void install(SessionFactory sessionFactory, String url) {
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
                log.info("Creating the Turnstile schema in {} (attempt {})", url, attempt);
                schema.exportMappedObjects(false);
            } catch (RuntimeException createFailed) {
                // Another process created the tables between our validation and our create.
                log.debug("Schema creation failed; validating again", createFailed);
            }
            try {
                Thread.sleep(attempt == 1 ? 0 : PAUSE_MILLIS);
            } catch (InterruptedException e) {
                throw EngineRuntimeException.interrupted("installing the schema", e);
            }
        }
        throw EngineRuntimeException.of(ExceptionCode.E_DATABASE_UNAVAILABLE,
                "The Turnstile schema in " + url + " does not validate: " + last.getMessage(), last);
    }
}
