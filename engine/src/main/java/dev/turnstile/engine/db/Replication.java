package dev.turnstile.engine.db;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.Set;

/**
 * A PostgreSQL primary streaming to standbys. A failover keeps the engine's promises only when a
 * commit is on a standby before it is answered: with asynchronous standbys the promoted one can
 * lack numbers, saves and locks already answered, and hands them out again. That is a deployment
 * choice (asynchronous standbys serve reports well), so the engine warns at open rather than refuse.
 */
final class Replication {
    private static final Logger log = LoggerFactory.getLogger(Replication.class);
    /** synchronous_commit levels at which a commit waits for a synchronous standby. */
    private static final Set<String> WAITING_FOR_A_STANDBY = Set.of("on", "remote_apply", "remote_write");

    private Replication() {
    }

    /** On a PostgreSQL primary with asynchronous standbys, logs a warning saying what a failover can cost. */
    static void warnIfStandbysAreAsynchronous(DataSource dataSource, String productName, String where) {
        if (!Sql.isPostgres(productName)) {
            return;
        }
        try (Connection c = dataSource.getConnection()) {
            asynchronousStandbys(c, where).ifPresent(log::warn);
        } catch (SQLException e) {
            log.debug("Cannot read the replication settings of {}", where, e);
        }
    }

    /** The warning for {@code c}'s server, if it streams to standbys that its commits do not wait for. */
    static Optional<String> asynchronousStandbys(Connection c, String where) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM pg_stat_replication),"
                + " current_setting('synchronous_standby_names'), current_setting('synchronous_commit')")) {
            rs.next();
            long standbys = rs.getLong(1);
            String names = rs.getString(2);
            String commit = rs.getString(3);
            if (standbys == 0 || (!names.isBlank() && WAITING_FOR_A_STANDBY.contains(commit))) {
                return Optional.empty();
            }
            return Optional.of(where + " streams to " + standbys + (standbys == 1 ? " standby" : " standbys")
                    + " asynchronously (synchronous_standby_names = '" + names + "', synchronous_commit = " + commit
                    + "): after a failover the promoted standby can lack numbers, saves and locks already answered,"
                    + " and give them out again. To fail over without that, name the standbys in"
                    + " synchronous_standby_names and keep synchronous_commit on.");
        }
    }
}
