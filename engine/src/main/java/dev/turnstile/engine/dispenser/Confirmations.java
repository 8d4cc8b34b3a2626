package dev.turnstile.engine.dispenser;

import dev.turnstile.engine.db.Database;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Numbers a plain take wrote in doubt ({@link Register#inDoubtWhile}) whose caller has them now: their
 * mark is cleared in the background, every {@value #PERIOD_MILLIS} ms, the ranges of many takes in one
 * transaction on a connection of its own (merged where they touch, up to
 * {@value #RANGES_PER_STATEMENT} in one statement), so a take costs no second statement and the
 * engine's statistics count none of it. A number stays in doubt when its answer never reached the
 * caller (the call gave up after the commit, an outage cut the answer and the retry took another
 * number) and, for at most one period, when this process dies after answering — the register
 * cannot tell those apart, and says so.
 */
final class Confirmations implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Confirmations.class);
    static final long PERIOD_MILLIS = 250;
    /** Ranges kept through an outage at most; beyond, the oldest stay in doubt (said in a warning). */
    static final int MAX_PENDING = 100_000;
    /** Ranges of one dispenser's period per statement: one execution clears many takes' numbers. */
    static final int RANGES_PER_STATEMENT = 100;

    /** Numbers {@code first..last} of a dispenser's period, answered. */
    record Answered(String dispenser, String period, long first, long last) {
    }

    private final Database database;
    private final ConcurrentLinkedQueue<Answered> pending = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();
    /** Started by the first answer: an engine that takes no numbers has no thread for them. */
    private volatile ScheduledExecutorService timer;
    private boolean closed;

    Confirmations(Database database) {
        this.database = database;
    }

    private synchronized void startTimer() {
        if (timer == null && !closed) {
            timer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "turnstile-register-confirmations");
                t.setDaemon(true);
                return t;
            });
            timer.scheduleWithFixedDelay(this::flushQuietly, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** The caller has {@code first..last}: cleared with the next flush. */
    void answered(String dispenser, String period, long first, long last) {
        if (timer == null) {
            startTimer();
        }
        if (size.incrementAndGet() > MAX_PENDING) {
            Answered dropped = pending.poll();
            size.decrementAndGet();
            if (dropped != null) {
                log.warn("Register confirmations pile up (the database out of reach?): {} {}..{} of period '{}' stays in doubt",
                        dropped.dispenser(), dropped.first(), dropped.last(), dropped.period());
            }
        }
        pending.add(new Answered(dispenser, period, first, last));
    }

    private void flushQuietly() {
        try {
            flush();
        } catch (RuntimeException e) {
            log.debug("Could not confirm answered numbers; trying again in {} ms: {}", PERIOD_MILLIS, e.getMessage());
        }
    }

    /** Clears the marks of every range answered so far, in one transaction; on failure they stay pending, and it throws. */
    synchronized void flush() {
        List<Answered> batch = new ArrayList<>();
        for (Answered a; (a = pending.poll()) != null; ) {
            size.decrementAndGet();
            batch.add(a);
        }
        if (batch.isEmpty()) {
            return;
        }
        List<Answered> merged = merged(batch);
        try {
            confirm(merged);
        } catch (SQLException | RuntimeException e) {
            merged.forEach(a -> {
                pending.add(a);
                size.incrementAndGet();
            });
            throw new IllegalStateException("could not confirm " + merged.size() + " answered range(s): " + e.getMessage(), e);
        }
    }

    /** One transaction on a pooled connection of its own: upkeep, not counted in the engine's statistics. */
    private void confirm(List<Answered> merged) throws SQLException {
        try (Connection c = database.dataSource().getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                for (List<Answered> chunk : statements(merged)) {
                    try (PreparedStatement statement = c.prepareStatement(confirm(chunk.size()))) {
                        int i = 0;
                        statement.setString(++i, chunk.get(0).dispenser());
                        statement.setString(++i, chunk.get(0).period());
                        for (Answered a : chunk) {
                            statement.setLong(++i, a.first());
                            statement.setLong(++i, a.last());
                        }
                        statement.executeUpdate();
                    }
                }
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(autoCommit);
            }
        }
    }

    /** Clears the mark of {@code ranges} ranges of one dispenser's period. */
    private static String confirm(int ranges) {
        return "UPDATE ts_dispenser_issue SET in_doubt = false WHERE dispenser = ? AND period = ? AND in_doubt = true AND ("
                + String.join(" OR ", java.util.Collections.nCopies(ranges, "number BETWEEN ? AND ?")) + ")";
    }

    /** The merged ranges as statements: one dispenser's period each, at most {@link #RANGES_PER_STATEMENT}. */
    private static List<List<Answered>> statements(List<Answered> merged) {
        List<List<Answered>> statements = new ArrayList<>();
        List<Answered> current = new ArrayList<>();
        for (Answered a : merged) {
            if (!current.isEmpty() && (current.size() == RANGES_PER_STATEMENT || !current.get(0).dispenser().equals(a.dispenser())
                    || !current.get(0).period().equals(a.period()))) {
                statements.add(current);
                current = new ArrayList<>();
            }
            current.add(a);
        }
        if (!current.isEmpty()) {
            statements.add(current);
        }
        return statements;
    }

    /** The ranges in order, those that touch or overlap joined: fewer statements for consecutive takes. */
    static List<Answered> merged(List<Answered> ranges) {
        List<Answered> sorted = new ArrayList<>(ranges);
        sorted.sort(Comparator.comparing(Answered::dispenser).thenComparing(Answered::period).thenComparingLong(Answered::first));
        List<Answered> out = new ArrayList<>();
        for (Answered a : sorted) {
            Answered last = out.isEmpty() ? null : out.get(out.size() - 1);
            if (last != null && last.dispenser().equals(a.dispenser()) && last.period().equals(a.period()) && a.first() <= last.last() + 1) {
                out.set(out.size() - 1, new Answered(a.dispenser(), a.period(), last.first(), Math.max(last.last(), a.last())));
            } else {
                out.add(a);
            }
        }
        return out;
    }

    /** Stops the timer and confirms what is left, if the database can be reached. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            if (timer != null) {
                timer.shutdownNow();
            }
        }
        flushQuietly();
    }
}
