package dev.turnstile.engine.dispenser;

import dev.turnstile.api.ChangeContext;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.Properties;
import dev.turnstile.api.dispenser.IssuedNumber;
import dev.turnstile.api.dispenser.NumberRange;
import dev.turnstile.api.dispenser.RegisterReport;
import dev.turnstile.engine.objects.ObjectTransaction;
import org.hibernate.StatelessSession;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The issued register. Its rows are written by a change preprocessor on the dispenser class, so
 * they commit or roll back with the counter whatever strategy moved it: numbers taken are
 * recorded, numbers an admin skipped are recorded as voided with the admin action as reason.
 */
final class Register {
    /** For a combined save: the user each number of the block is for, in order. */
    private static final ThreadLocal<List<String>> ISSUERS = new ThreadLocal<>();
    /** Set while a plain take runs: its numbers are written in doubt, until its caller has them. */
    private static final ThreadLocal<Boolean> IN_DOUBT = new ThreadLocal<>();

    private Register() {
    }

    /** Runs a save whose numbers are recorded for {@code issuers} (one per number) rather than the saving user. */
    static <T> T issuedFor(List<String> issuers, Supplier<T> save) {
        ISSUERS.set(issuers);
        try {
            return save.get();
        } finally {
            ISSUERS.remove();
        }
    }

    /**
     * Runs a plain take, whose numbers are written in doubt: whether its answer reaches the caller is
     * known only once it has (then {@link Confirmations} clears the mark). A number taken in the host's
     * transaction, for an object ({@code numberOnCreate}) or for a request key is never in doubt: the
     * host or the object commits with it, or the key gets it again.
     */
    static <T> T inDoubtWhile(Supplier<T> take) {
        Boolean outer = IN_DOUBT.get();
        IN_DOUBT.set(Boolean.TRUE);
        try {
            return take.get();
        } finally {
            IN_DOUBT.set(outer);
        }
    }

    /** Whether the take running on this thread writes its numbers in doubt. */
    static boolean inDoubt() {
        return Boolean.TRUE.equals(IN_DOUBT.get());
    }

    /** Who each of a take's {@code count} numbers is recorded for: the combined callers, else {@code user}. */
    static List<String> issuers(int count, String user) {
        List<String> issuers = ISSUERS.get();
        return issuers != null && issuers.size() == count ? issuers : java.util.Collections.nCopies(count, user);
    }

    /** The preprocessor: records what this save of a dispenser issued or skipped. */
    static void record(ChangeContext change) {
        Properties values = change.properties();
        if (change.action() != ChangeContext.Action.UPDATE || !Boolean.TRUE.equals(values.getBooleanValue(Series.REGISTER))) {
            return;
        }
        ObjectTransaction tx = ObjectTransaction.of(change).orElseThrow();
        String name = values.getStringValue(Series.NAME);
        String period = values.getStringValue(Series.PERIOD);
        long counter = values.getInt64Value(Series.COUNTER);
        boolean samePeriod = period.equals(change.originalValue(Series.PERIOD));
        long before = samePeriod ? (Long) change.originalValue(Series.COUNTER) : values.getInt64Value(Series.START) - 1;
        String adminAction = values.getStringValue(Series.ADMIN_ACTION);
        boolean inDoubt = inDoubt();
        // Written after the counter's USN-checked update: a writer that lost the race records nothing.
        tx.afterWrite(() -> {
            if (counter <= before) {
                return;
            }
            if (adminAction != null) {
                // Skipped by an admin: one row for the range, however long (setStart far ahead is one insert).
                IssueRecord skipped = new IssueRecord(name, period, before + 1, change.user(), change.now(), false);
                skipped.lastNumber = counter > before + 1 ? counter : null;
                skipped.voidedBy = change.user();
                skipped.voidReason = "skipped: " + adminAction;
                tx.session().insert(skipped);
                return;
            }
            // A block's rows in JDBC batches: one round trip per batch, not per number.
            List<String> users = issuers((int) (counter - before), change.user());
            List<IssueRecord> rows = new ArrayList<>((int) (counter - before));
            for (long n = before + 1; n <= counter; n++) {
                rows.add(new IssueRecord(name, period, n, users.get((int) (n - before - 1)), change.now(), inDoubt));
            }
            if (rows.size() == 1) {
                tx.session().insert(rows.get(0));
            } else {
                Integer batch = tx.session().getJdbcBatchSize();
                tx.session().setJdbcBatchSize(INSERT_BATCH);
                try {
                    tx.session().insertMultiple(rows);
                } finally {
                    tx.session().setJdbcBatchSize(batch);
                }
            }
        });
    }

    /** Register rows per JDBC batch when a block is taken. */
    private static final int INSERT_BATCH = 100;

    /** Links a number to the object it numbered, in the transaction that creates the object. */
    static void linkObject(StatelessSession session, String name, String period, long number, UUID objectId) {
        session.createMutationQuery("update IssueRecord r set r.objectId = :object where r.key.dispenser = :name"
                        + " and r.key.period = :period and r.key.number = :number")
                .setParameter("object", objectId).setParameter("name", name).setParameter("period", period)
                .setParameter("number", number).executeUpdate();
    }

    /** The periods the register holds numbers of, oldest first (period keys sort by time). */
    static List<String> periods(StatelessSession session, String name) {
        return session.createSelectionQuery("select distinct r.key.period from IssueRecord r where r.key.dispenser = :name"
                + " order by r.key.period", String.class).setParameter("name", name).getResultList();
    }

    /** The highest number the register holds for the period, or {@code none}. */
    static long highest(StatelessSession session, String name, String period, long none) {
        Long highest = session.createSelectionQuery("select max(coalesce(r.lastNumber, r.key.number)) from IssueRecord r"
                        + " where r.key.dispenser = :name and r.key.period = :period", Long.class)
                .setParameter("name", name).setParameter("period", period).getSingleResult();
        return highest == null ? none : highest;
    }

    /** Up to {@code max} entries of the period, in number order, from the one holding {@code from} on. */
    static List<IssuedNumber> list(StatelessSession session, String name, String period, long from, int max) {
        List<IssuedNumber> out = new ArrayList<>();
        for (IssueRecord r : session.createSelectionQuery("from IssueRecord r where r.key.dispenser = :name"
                        + " and r.key.period = :period and coalesce(r.lastNumber, r.key.number) >= :from order by r.key.number",
                        IssueRecord.class)
                .setParameter("name", name).setParameter("period", period).setParameter("from", from)
                .setMaxResults(max).getResultList()) {
            out.add(entry(name, period, r));
        }
        return out;
    }

    private static IssuedNumber entry(String name, String period, IssueRecord r) {
        return new IssuedNumber(name, period, r.key.number, r.issuedBy, r.issuedAt, r.objectId, r.voidedBy, r.voidReason, r.last(),
                r.inDoubt);
    }

    static void voidNumber(StatelessSession session, String name, String period, long number, String user, String reason) {
        if (reason == null || reason.isBlank() || reason.length() > 400) {
            throw EngineRuntimeException.badArgument("void reason for " + name + " number " + number, reason,
                    "a reason of 1 to 400 characters is required");
        }
        int rows = session.createMutationQuery("update IssueRecord r set r.voidedBy = :user, r.voidReason = :reason, r.inDoubt = false"
                        + " where r.key.dispenser = :name and r.key.period = :period and r.key.number = :number"
                        + " and r.voidedBy is null")
                .setParameter("user", user).setParameter("reason", reason).setParameter("name", name)
                .setParameter("period", period).setParameter("number", number).executeUpdate();
        if (rows == 0) {
            throw EngineRuntimeException.of(ExceptionCode.E_OBJECT_NOT_FOUND, "Dispenser " + name + " has no issued,"
                    + " unvoided number " + number + (period.isEmpty() ? "" : " in period " + period));
        }
    }

    /**
     * The period's account, computed by the database: the numbers issued and voided (a skipped
     * range counts its length), those of them in doubt (listed from {@code from}, at most
     * {@code maxRanges}), and the missing ranges — the holes between consecutive rows, found
     * with a window function, and after the last row up to {@code last} — that end at or after
     * {@code from}, at most {@code maxRanges} of them. Memory and rows read do not grow with the series.
     */
    static RegisterReport report(StatelessSession session, String name, String period, long first, long last, long from,
                                 int maxRanges) {
        Object[] totals = (Object[]) session.createNativeQuery("SELECT"
                        + " COALESCE(SUM(CASE WHEN voided_by IS NULL THEN COALESCE(last_number, number) - number + 1 ELSE 0 END), 0),"
                        + " COALESCE(SUM(CASE WHEN voided_by IS NULL THEN 0 ELSE COALESCE(last_number, number) - number + 1 END), 0),"
                        + " MAX(COALESCE(last_number, number)),"
                        + " COALESCE(SUM(CASE WHEN in_doubt AND voided_by IS NULL THEN 1 ELSE 0 END), 0)"
                        + " FROM ts_dispenser_issue WHERE dispenser = :name AND period = :period AND number BETWEEN :first AND :last",
                        Object[].class)
                .setParameter("name", name).setParameter("period", period).setParameter("first", first)
                .setParameter("last", last).getSingleResult();
        long issued = ((Number) totals[0]).longValue();
        long voided = ((Number) totals[1]).longValue();
        long end = totals[2] == null ? first - 1 : Math.min(last, ((Number) totals[2]).longValue());
        long missingCount = Math.max(0, last - first + 1) - issued - voided;
        long inDoubt = ((Number) totals[3]).longValue();
        List<NumberRange> missing = new ArrayList<>();
        for (Object[] hole : session.createNativeQuery("SELECT prev_end + 1, number - 1 FROM ("
                        + " SELECT number, COALESCE(LAG(COALESCE(last_number, number)) OVER (ORDER BY number), :before) AS prev_end"
                        + " FROM ts_dispenser_issue WHERE dispenser = :name AND period = :period AND number BETWEEN :first AND :last"
                        + ") t WHERE number > prev_end + 1 AND number - 1 >= :from ORDER BY number", Object[].class)
                .setParameter("before", first - 1).setParameter("name", name).setParameter("period", period)
                .setParameter("first", first).setParameter("last", last).setParameter("from", from)
                .setMaxResults(maxRanges).getResultList()) {
            missing.add(new NumberRange(((Number) hole[0]).longValue(), ((Number) hole[1]).longValue()));
        }
        if (missing.size() < maxRanges && end < last && last >= from) {
            missing.add(new NumberRange(Math.max(end + 1, first), last)); // after the last row
        }
        List<IssuedNumber> numbersInDoubt = new ArrayList<>();
        if (inDoubt > 0) {
            for (IssueRecord r : session.createSelectionQuery("from IssueRecord r where r.key.dispenser = :name and r.key.period = :period"
                            + " and r.inDoubt = true and r.voidedBy is null and r.key.number between :from and :last order by r.key.number",
                            IssueRecord.class)
                    .setParameter("name", name).setParameter("period", period).setParameter("from", Math.max(from, first))
                    .setParameter("last", last).setMaxResults(maxRanges).getResultList()) {
                numbersInDoubt.add(entry(name, period, r));
            }
        }
        return new RegisterReport(name, period, first, last, issued, voided, missingCount, missing, inDoubt, numbersInDoubt);
    }
}
