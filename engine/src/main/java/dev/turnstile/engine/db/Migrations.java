package dev.turnstile.engine.db;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationInfoService;
import org.flywaydb.core.api.logging.Log;
import org.flywaydb.core.api.logging.LogCreator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;

/**
 * The {@code ts_*} tables, made and upgraded by versioned Flyway migrations, one folder per database
 * ({@link #location}), recorded in {@link #HISTORY_TABLE}. Flyway takes a database lock while it
 * migrates, so several processes may open a new database at once.
 *
 * <p>A database made by release 0.1 (Hibernate's schema update) has the tables but no history: it
 * is brought to that release's last state by {@link SchemaUpgrade} and baselined at version 1,
 * whose script is that state.
 */
public final class Migrations {
    private static final Logger log = LoggerFactory.getLogger(Migrations.class);
    /** Flyway's record of the migrations applied to the Turnstile tables. */
    public static final String HISTORY_TABLE = "ts_schema_history";
    private static final String RELEASE_0_1 = "1";

    private Migrations() {
    }

    /** The classpath location of {@code productName}'s migrations, for a host that runs them with its own Flyway. */
    public static String location(String productName) {
        String folder = Sql.isPostgres(productName) ? "postgresql" : Sql.isMariaDb(productName) ? "mariadb" : "h2";
        return "classpath:dev/turnstile/engine/db/migration/" + folder;
    }

    /**
     * Applies what is pending ({@code migrate}), or only checks that nothing is (the host runs the
     * migrations): a schema older or newer than this release's is refused, naming both versions.
     */
    static void apply(DataSource dataSource, String productName, boolean migrate, String where) {
        Flyway flyway = Flyway.configure(Migrations.class.getClassLoader())
                .dataSource(dataSource)
                .table(HISTORY_TABLE)
                .locations(location(productName))
                // A host's own tables may share the schema: Flyway would call it "not empty" and
                // refuse; the Turnstile tables are told apart below, by their own names.
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .loggers(QuietLog.class.getName())
                .load();
        try {
            if (migrate) {
                if (isReleaseZeroOne(dataSource)) {
                    SchemaUpgrade.run(dataSource, productName);
                    SchemaUpgrade.exactKeys(dataSource, productName);
                    flyway = Flyway.configure(Migrations.class.getClassLoader()).configuration(flyway.getConfiguration())
                            .baselineVersion(RELEASE_0_1).baselineDescription("made by release 0.1").load();
                    flyway.baseline();
                    log.debug("Baselined the Turnstile tables in {} at version {} (release 0.1)", where, RELEASE_0_1);
                }
                refuseWhileOldTreeLocksAreLive(flyway, dataSource, productName, where);
                migrate(flyway, where);
                return;
            }
            MigrationInfoService info = flyway.info();
            MigrationInfo[] pending = info.pending();
            if (pending.length > 0) {
                MigrationInfo current = info.current();
                throw EngineRuntimeException.of(ExceptionCode.E_DATABASE_UNAVAILABLE, "The Turnstile schema in " + where
                        + " is at version " + (current == null ? "none" : current.getVersion()) + "; this release needs "
                        + Arrays.stream(pending).map(m -> m.getVersion().toString()).collect(Collectors.joining(", "))
                        + " too: run the migrations in " + location(productName) + " with table " + HISTORY_TABLE
                        + ", or let the engine run them (database.migrate: true)");
            }
            flyway.validate();
        } catch (FlywayException e) {
            throw EngineRuntimeException.of(ExceptionCode.E_DATABASE_UNAVAILABLE,
                    "Cannot bring the Turnstile schema in " + where + " up to date: " + e.getMessage(), e);
        }
    }

    /**
     * The last version that changed where tree-lock marks are: {@code V3__tree_lock_intention_stripes}
     * spread them over stripes, {@code V4__tree_lock_stripes_and_waiters} over more of them.
     */
    private static final String TREE_LOCK_LAYOUT = "4";

    /**
     * Versions 3 and 4 clear what tree locks older releases left, since their marks are not where this
     * release looks for them. A live one means an engine of an older release holds it, and may
     * still be running: refused, naming how many and until when, and nothing is migrated.
     */
    private static void refuseWhileOldTreeLocksAreLive(Flyway flyway, DataSource dataSource, String productName, String where) {
        MigrationInfo current = flyway.info().current();
        if (current == null || current.getVersion().isAtLeast(TREE_LOCK_LAYOUT)) {
            return;
        }
        String now = Sql.isMariaDb(productName) ? "UTC_TIMESTAMP(6)" : "CURRENT_TIMESTAMP";
        try (Connection c = dataSource.getConnection()) {
            if (!hasTable(c, "ts_tree_lease")) {
                return;
            }
            try (var s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT COUNT(*), MAX(expires_at) FROM ts_tree_lease WHERE "
                         + Expiry.in("expires_at").heldAt(now))) {
                rs.next();
                long live = rs.getLong(1);
                if (live > 0) {
                    throw EngineRuntimeException.of(ExceptionCode.E_DATABASE_UNAVAILABLE, "The Turnstile schema in " + where
                            + " is at version " + current.getVersion() + " and " + live + " tree lock(s) taken by an older"
                            + " release are live (the last lapses at " + rs.getString(2) + "); schema version "
                            + TREE_LOCK_LAYOUT + " records tree locks differently: stop every engine of the older release,"
                            + " then open this one after that time");
                }
            }
            if (!c.getAutoCommit()) {
                c.rollback();
            }
        } catch (SQLException e) {
            throw EngineRuntimeException.of(ExceptionCode.E_DATABASE_UNAVAILABLE,
                    "Cannot read the tree locks in " + where + ": " + e.getMessage(), e);
        }
    }

    private static final int MIGRATE_ATTEMPTS = 5;

    /**
     * Flyway's migrate, again after a failure: on Galera Flyway's lock holds on one node only, so
     * processes opening a new database on several nodes at once may run a migration together (its
     * statements may run twice) and all but one fail to record it. The loser clears the failed
     * record ({@code repair}) and finds the migration applied.
     */
    private static void migrate(Flyway flyway, String where) {
        for (int attempt = 1; ; attempt++) {
            try {
                flyway.migrate();
                return;
            } catch (FlywayException e) {
                if (attempt == MIGRATE_ATTEMPTS) {
                    throw e;
                }
                log.debug("Migrating the Turnstile schema in {} failed ({}); repairing the history and again", where, e.getMessage());
                try {
                    Thread.sleep(ThreadLocalRandom.current().nextLong(100, 500));
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw EngineRuntimeException.interrupted("migrating the Turnstile schema", interrupted);
                }
                flyway.repair();
            }
        }
    }

    /**
     * True if the Turnstile tables exist without a migration history: the database of release 0.1.
     * (Flyway makes the history table before it runs version 1, so a process migrating a new
     * database elsewhere at this moment never looks like that.)
     */
    private static boolean isReleaseZeroOne(DataSource dataSource) {
        try (Connection c = dataSource.getConnection()) {
            return hasTable(c, "ts_object") && !hasTable(c, HISTORY_TABLE);
        } catch (SQLException e) {
            throw EngineRuntimeException.of(ExceptionCode.E_DATABASE_UNAVAILABLE,
                    "Cannot read the Turnstile tables: " + e.getMessage(), e);
        }
    }

    /** Whether {@code table} exists, named as written (Flyway quotes its names) or as the database folds it. */
    private static boolean hasTable(Connection c, String table) throws SQLException {
        DatabaseMetaData meta = c.getMetaData();
        for (String name : new String[]{table, meta.storesUpperCaseIdentifiers() ? table.toUpperCase(Locale.ROOT) : table}) {
            try (ResultSet rs = meta.getTables(c.getCatalog(), c.getSchema(), name, new String[]{"TABLE"})) {
                if (rs.next()) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Flyway's log, one level down: an open that finds the schema current, or migrates it, is
     * routine and says so at DEBUG (Flyway says it at INFO); warnings and errors stay as they are.
     */
    public static final class QuietLog implements LogCreator {
        @Override
        public Log createLogger(Class<?> type) {
            Logger l = LoggerFactory.getLogger(type);
            return new Log() {
                @Override
                public boolean isDebugEnabled() {
                    return l.isTraceEnabled();
                }

                @Override
                public void debug(String message) {
                    l.trace(message);
                }

                @Override
                public void info(String message) {
                    l.debug(message);
                }

                @Override
                public void warn(String message) {
                    l.warn(message);
                }

                @Override
                public void error(String message) {
                    l.error(message);
                }

                @Override
                public void error(String message, Exception e) {
                    l.error(message, e);
                }

                @Override
                public void notice(String message) {
                    l.debug(message);
                }
            };
        }
    }
}
