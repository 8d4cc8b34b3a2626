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
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * The database server's clock, carried between readings by this process's monotonic clock
 * ({@link System#nanoTime}), never by its wall clock: the database time read at the last
 * {@link #RESYNC_INTERVAL resync} plus the monotonic time elapsed since. A wall clock that NTP
 * steps, or that is set minutes or days wrong, changes nothing here, so every node sharing a
 * database stamps dates and decides expiry by the database's clock (to within half a round trip
 * and the monotonic clock's drift over one interval). Readings never go backwards within a process.
 */
final class DatabaseClock extends Clock {
    static final Duration RESYNC_INTERVAL = Duration.ofSeconds(30);

    private final DataSource dataSource;
    private final BooleanSupplier mayResync;
    private final Duration resyncInterval;
    private final LongSupplier nanoTicker;
    private final String nowQuery;
    /** Database time at the last reading, in microseconds since the epoch, and the tick it was read at. */
    private volatile Anchor anchor;
    /** The latest reading handed out (µs): readings never go backwards, even across a resync. */
    private final AtomicLong lastMicros = new AtomicLong(Long.MIN_VALUE);

    private record Anchor(long dbMicros, long atNanos) {
    }

    /**
     * {@code mayResync} says whether the calling thread may borrow a connection now: a thread that
     * already holds one (inside a transaction) must not, or a full pool would wait on itself. It
     * then carries the last reading forward, which is at most one interval old.
     */
    DatabaseClock(DataSource dataSource, String productName, BooleanSupplier mayResync, Duration resyncInterval,
                  LongSupplier nanoTicker) {
        this.dataSource = dataSource;
        this.mayResync = mayResync;
        this.resyncInterval = resyncInterval;
        this.nanoTicker = nanoTicker;
        this.nowQuery = nowQuery(productName);
        resync();
    }

    DatabaseClock(DataSource dataSource, String productName, BooleanSupplier mayResync, Duration resyncInterval) {
        this(dataSource, productName, mayResync, resyncInterval, System::nanoTime);
    }

    private static String nowQuery(String productName) {
        String p = productName.toLowerCase(Locale.ROOT);
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
            long before = nanoTicker.getAsLong();
            try (ResultSet rs = s.executeQuery(nowQuery)) {
                rs.next();
                // The query returns the UTC wall time as a zone-less timestamp; read it as UTC.
                Instant dbNow = rs.getTimestamp(1).toLocalDateTime().toInstant(ZoneOffset.UTC);
                long after = nanoTicker.getAsLong();
                anchor = new Anchor(micros(dbNow), before + (after - before) / 2);
            }
            if (!c.getAutoCommit()) {
                c.rollback();
            }
        } catch (SQLException e) {
            throw EngineRuntimeException.of(ExceptionCode.E_DATABASE_UNAVAILABLE,
                    "Cannot read the database clock: " + e.getMessage(), e);
        }
    }

    private static long micros(Instant t) {
        return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1_000);
    }

    @Override
    public Instant instant() {
        Anchor a = anchor;
        if (nanoTicker.getAsLong() - a.atNanos() > resyncInterval.toNanos() && mayResync.getAsBoolean()) {
            synchronized (this) {
                if (anchor == a) {
                    resync();
                }
            }
            a = anchor;
        }
        long reading = a.dbMicros() + (nanoTicker.getAsLong() - a.atNanos()) / 1_000;
        long micros = lastMicros.accumulateAndGet(reading, Math::max);
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000);
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
        return "DatabaseClock[read " + Duration.ofNanos(nanoTicker.getAsLong() - anchor.atNanos()) + " ago]";
    }
}
