package dev.turnstile.engine.dispenser;

import dev.turnstile.api.ChangeContext;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.IssuedNumber;
import dev.turnstile.api.Properties;
import dev.turnstile.api.RegisterReport;
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
        List<String> issuers = ISSUERS.get();
        // Written after the counter's USN-checked update: a writer that lost the race records nothing.
        tx.afterWrite(() -> {
            for (long n = before + 1; n <= counter; n++) {
                String user = issuers != null && issuers.size() == counter - before ? issuers.get((int) (n - before - 1)) : change.user();
                IssueRecord issued = new IssueRecord(name, period, n, user, change.now());
                if (adminAction != null) {
                    issued.voidedBy = change.user();
                    issued.voidReason = "skipped: " + adminAction;
                }
                tx.session().insert(issued);
            }
        });
    }

    /** Links a number to the object it numbered, in the transaction that creates the object. */
    static void linkObject(StatelessSession session, String name, String period, long number, UUID objectId) {
        session.createMutationQuery("update IssueRecord r set r.objectId = :object where r.key.dispenser = :name"
                        + " and r.key.period = :period and r.key.number = :number")
                .setParameter("object", objectId).setParameter("name", name).setParameter("period", period)
                .setParameter("number", number).executeUpdate();
    }

    static List<IssuedNumber> list(StatelessSession session, String name, String period) {
        List<IssuedNumber> out = new ArrayList<>();
        for (IssueRecord r : session.createSelectionQuery("from IssueRecord r where r.key.dispenser = :name"
                        + " and r.key.period = :period order by r.key.number", IssueRecord.class)
                .setParameter("name", name).setParameter("period", period).getResultList()) {
            out.add(new IssuedNumber(name, period, r.key.number, r.issuedBy, r.issuedAt, r.objectId, r.voidedBy, r.voidReason));
        }
        return out;
    }

    static void voidNumber(StatelessSession session, String name, String period, long number, String user, String reason) {
        if (reason == null || reason.isBlank() || reason.length() > 400) {
            throw EngineRuntimeException.badArgument("void reason for " + name + " number " + number, reason,
                    "a reason of 1 to 400 characters is required");
        }
        int rows = session.createMutationQuery("update IssueRecord r set r.voidedBy = :user, r.voidReason = :reason"
                        + " where r.key.dispenser = :name and r.key.period = :period and r.key.number = :number"
                        + " and r.voidedBy is null")
                .setParameter("user", user).setParameter("reason", reason).setParameter("name", name)
                .setParameter("period", period).setParameter("number", number).executeUpdate();
        if (rows == 0) {
            throw EngineRuntimeException.of(ExceptionCode.E_OBJECT_NOT_FOUND, "Dispenser " + name + " has no issued,"
                    + " unvoided number " + number + (period.isEmpty() ? "" : " in period " + period));
        }
    }

    static RegisterReport report(StatelessSession session, String name, String period, long first, long last) {
        List<IssuedNumber> entries = list(session, name, period);
        List<Long> missing = new ArrayList<>();
        long issued = 0;
        long voided = 0;
        long expect = first;
        for (IssuedNumber e : entries) {
            for (; expect < e.number() && expect <= last; expect++) {
                missing.add(expect);
            }
            expect = Math.max(expect, e.number() + 1);
            if (e.isVoided()) {
                voided++;
            } else {
                issued++;
            }
        }
        for (; expect <= last; expect++) {
            missing.add(expect);
        }
        return new RegisterReport(name, period, first, last, issued, voided, missing);
    }
}
