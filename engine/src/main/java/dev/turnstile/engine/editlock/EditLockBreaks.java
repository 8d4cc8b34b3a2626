package dev.turnstile.engine.editlock;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.engine.db.Database;
import org.hibernate.StatelessSession;

import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * Edit locks ended by someone other than their holder: an operator with the lock-breaking role
 * ({@code locks.breakerRole}) breaks an abandoned one. A broken lock's row has its own state, so
 * that its holder's next heartbeat, save or unlock is told who broke it, when and why (the audit
 * trail's entry) rather than that it lapsed; anyone may take the resource over at once.
 */
final class EditLockBreaks {
    /** The state of a broken lock's row: neither held (state 1) nor given up by its holder (state 0). */
    static final int BROKEN = 2;
    static final int MAX_REASON = 200;
    private static final String OPERATION = "break";

    private final EditLockService service;
    private final Database database;
    private final String breakerRole;

    EditLockBreaks(EditLockService service, Database database, String breakerRole) {
        this.service = service;
        this.database = database;
        this.breakerRole = breakerRole;
    }

    /** Breaks the valid lock {@code lockId} as {@code user}, for {@code reason}; audited with both. */
    void breakLock(String user, Set<String> roles, String lockId, String reason) {
        service.checkUser(user);
        if (!roles.contains(breakerRole)) {
            throw EngineRuntimeException.of(ExceptionCode.E_ACCESS_DENIED, user + " may not break edit lock " + lockId
                    + ": that needs the role " + breakerRole);
        }
        if (reason == null || reason.isBlank() || reason.length() > MAX_REASON) {
            throw EngineRuntimeException.badArgument("reason for breaking edit lock " + lockId, reason,
                    "1 to " + MAX_REASON + " characters: why, for its holder and the audit trail");
        }
        try {
            database.inTransaction(() -> user + " breaking edit lock " + lockId, session -> {
                Instant now = database.now();
                EditLockRecord row = service.row(session, lockId);
                if (row == null || !service.valid(row, now)) {
                    throw EngineRuntimeException.of(ExceptionCode.E_LEASE_LAPSED, "Edit lock " + lockId + " is not held"
                            + (row == null ? "" : " by " + row.userId) + ": released, lapsed, broken, taken over or never issued;"
                            + " there is nothing to break");
                }
                if (!EditLockService.LEASE.guarded(row.resourceId, row.usn).set("state", BROKEN).update(session)) {
                    throw EngineRuntimeException.leaseLapsed("Edit lock", lockId, row.userId, null); // its holder moved it on
                }
                service.audit.record(session, now, user, OPERATION, List.of(row.resourceId), "ok", detailPrefix(lockId, row.userId) + reason);
                return null;
            });
        } catch (EngineRuntimeException e) {
            service.audit.refusedOnLock(user, OPERATION, lockId, e.getMessage());
            throw e;
        }
    }

    /** The audit entry's detail before the reason: the lock it broke, so its holder's next call finds it. */
    private static String detailPrefix(String lockId, String holder) {
        return "lock " + lockId + " of " + holder + ": ";
    }

    /** What the holder of the broken lock {@code row} is told: who broke it, when and why. */
    static EngineRuntimeException told(StatelessSession session, EditLockRecord row) {
        List<EditAuditRecord> entries = session.createSelectionQuery("from EditAuditRecord a where a.resourceId = :r"
                        + " and a.operation = :op and a.outcome = 'ok' order by a.id desc", EditAuditRecord.class)
                .setParameter("r", row.resourceId).setParameter("op", OPERATION).setMaxResults(1).getResultList();
        String prefix = detailPrefix(row.lockId, row.userId);
        if (entries.isEmpty() || entries.get(0).detail == null || !entries.get(0).detail.startsWith(prefix)) {
            return EngineRuntimeException.leaseLapsed("Edit lock", row.lockId, row.userId, null);
        }
        EditAuditRecord e = entries.get(0);
        return EngineRuntimeException.of(ExceptionCode.E_LEASE_LAPSED, "Edit lock " + row.lockId + " of " + row.userId + " on "
                + row.resourceId + " was broken by " + e.userId + " at " + e.at + ": " + e.detail.substring(prefix.length()));
    }
}
