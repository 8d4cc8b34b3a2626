package dev.turnstile.engine.editlock;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.LockBreak;
import dev.turnstile.engine.breaks.LockBreaks;
import dev.turnstile.engine.db.Database;
import org.hibernate.StatelessSession;

import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * Edit locks ended by someone other than their holder: an operator with the lock-breaking role
 * breaks an abandoned one ({@link LockBreaks}, the rule every kind of lock shares). A broken lock's
 * row has its own state, and the break is recorded by the lock's id, so that its holder's next
 * heartbeat, save or unlock is told who broke it, when and why rather than that it lapsed — also
 * once someone else has taken the resource over, which anyone may do at once.
 */
final class EditLockBreaks {
    /** The state of a broken lock's row: neither held (state 1) nor given up by its holder (state 0). */
    static final int BROKEN = 2;
    private static final String OPERATION = "break";

    private final EditLockService service;
    private final Database database;
    private final LockBreaks breaks;

    EditLockBreaks(EditLockService service, Database database, LockBreaks breaks) {
        this.service = service;
        this.database = database;
        this.breaks = breaks;
    }

    /** Breaks the valid lock {@code lockId} as {@code user}, for {@code reason}; audited with both. */
    void breakLock(String user, Set<String> roles, String lockId, String reason) {
        service.checkUser(user);
        breaks.check(user, roles, "edit lock " + lockId, reason);
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
                breaks.record(session, new LockBreak(LockBreak.Kind.EDIT, lockId, row.userId, row.resourceId, user, now, reason));
                service.audit.record(session, now, user, OPERATION, List.of(row.resourceId), "ok",
                        "lock " + lockId + " of " + row.userId + ": " + reason);
                return null;
            });
        } catch (EngineRuntimeException e) {
            service.audit.refusedOnLock(user, OPERATION, lockId, e.getMessage());
            throw e;
        }
    }

    /**
     * What {@code user}, who used the lock {@code lockId} it no longer holds, is told: who broke it,
     * when and why if an operator did, else that it lapsed ({@code expiredAt}, if known).
     */
    EngineRuntimeException notHeld(StatelessSession session, String user, String lockId, Instant expiredAt) {
        return LockBreaks.notHeld(breaks.find(session, lockId), user, () -> EngineRuntimeException.leaseLapsed("Edit lock", lockId, user, expiredAt));
    }
}
