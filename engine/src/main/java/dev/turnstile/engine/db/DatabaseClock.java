package dev.turnstile.engine.db;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.function.BooleanSupplier;

/**
 * The database server's clock, read through an offset to the local clock that is re-measured every
 * {@link #RESYNC_INTERVAL}. Every node sharing a database stamps dates and decides expiry by the
 * same clock (to within a round trip), so clock skew between application nodes cannot make one
 * node think a lease expired while another thinks it is held.
 */
final class DatabaseClock extends Clock {
    static final Duration RESYNC_INTERVAL = Duration.ofSeconds(30);

    private final DataSource dataSource;
    private final BooleanSupplier mayResync;
    private final Duration resyncInterval;
    private final String nowQuery;
    private final Clock local = Clock.systemUTC();
    private volatile long offsetNanos;
    private volatile long syncedAtNanos;

    /**
     * {@code mayResync} says whether the calling thread may borrow a connection now: a thread that
     * already holds one (inside a transaction) must not, or a full pool would wait on itself. It
     * then reads the clock through the last offset, which is at most one interval old.
     */
    DatabaseClock(DataSource dataSource, String productName, BooleanSupplier mayResync, Duration resyncInterval) {
        this.dataSource = dataSource;
        this.mayResync = mayResync;
        this.resyncInterval = resyncInterval;
        this.nowQuery = nowQuery(productName);
        resync();
    }

    private static String nowQuery(String productName) {
        String p = productName.toLowerCase(java.util.Locale.ROOT);
        if (p.contains("postgres")) {
            return "SELECT CAST(clock_timestamp() AT TIME ZONE 'UTC' AS TIMESTAMP)";
        }
        if (p.contains("mariadb") || p.contains("mysql")) {
            return "SELECT UTC_TIMESTAMP(6)";
        }
        return "SELECT CAST(CURRENT_TIMESTAMP AT TIME ZONE 'UTC' AS TIMESTAMP)";
    }

    private void resync() {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            long before = System.nanoTime();
            Instant localBefore = local.instant();
            try (ResultSet rs = s.executeQuery(nowQuery)) {
                rs.next();
                // The query returns the UTC wall time as a zone-less timestamp; read it as UTC.
                Instant dbNow = rs.getTimestamp(1).toLocalDateTime().toInstant(ZoneOffset.UTC);
                long roundTrip = System.nanoTime() - before;
                Instant localMid = localBefore.plusNanos(roundTrip / 2);
                offsetNanos = Duration.between(localMid, dbNow).toNanos();
                syncedAtNanos = System.nanoTime();
            }
            if (!c.getAutoCommit()) {
                c.rollback();
            }
        } catch (SQLException e) {
            throw EngineRuntimeException.of(ExceptionCode.E_DATABASE_UNAVAILABLE,
                    "Cannot read the database clock: " + e.getMessage(), e);
        }
    }

    /** How far the database clock is ahead of this machine's, as last measured. */
    Duration offset() {
        return Duration.ofNanos(offsetNanos);
    }

    @Override
    public Instant instant() {
        if (System.nanoTime() - syncedAtNanos > resyncInterval.toNanos() && mayResync.getAsBoolean()) {
            synchronized (this) {
                if (System.nanoTime() - syncedAtNanos > resyncInterval.toNanos()) {
                    resync();
                }
            }
        }
        return local.instant().plusNanos(offsetNanos);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("the database clock is UTC only");
    }

    @Override
    public String toString() {
        return "DatabaseClock[offset=" + offset() + "]";
    }
}
