package dev.turnstile.engine.breaks;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.LockBreak;
import dev.turnstile.engine.db.Database;
import org.hibernate.StatelessSession;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Locks ended by someone other than their holder, one rule for every kind (edit, tree, cooperative):
 * only an operator with the lock-breaking role ({@code locks.breakerRole}) breaks one, saying why;
 * the capability ends the lock and {@link #record records} the break in one transaction, by the
 * lock's token, so that its holder's next call finds it ({@link #find}) and is told who broke it,
 * when and why rather than that it lapsed.
 */
public final class LockBreaks {
    public static final List<Class<?>> ENTITIES = List.of(LockBreakRecord.class);

    private final Database database;
    private final String breakerRole;

    public LockBreaks(Database database, String breakerRole) {
        this.database = database;
        this.breakerRole = breakerRole;
    }

    /** Whether a user with {@code roles} may break other users' locks. */
    public boolean mayBreak(Set<String> roles) {
        return roles.contains(breakerRole);
    }

    /**
     * Refuses, before anything is read or written, a break of {@code lock} (as a message names it:
     * "edit lock …") by a user without the role, or without a reason of 1 to {@link LockBreak#MAX_REASON} characters.
     */
    public void check(String user, Set<String> roles, String lock, String reason) {
        if (!mayBreak(roles)) {
            throw EngineRuntimeException.of(ExceptionCode.E_ACCESS_DENIED, user + " may not break " + lock
                    + ": that needs the role " + breakerRole);
        }
        if (reason == null || reason.isBlank() || reason.length() > LockBreak.MAX_REASON) {
            throw EngineRuntimeException.badArgument("reason for breaking " + lock, reason,
                    "1 to " + LockBreak.MAX_REASON + " characters: why, for its holder and the audit trail");
        }
    }

    /** Records {@code b} in the transaction that ends the lock. */
    public void record(StatelessSession session, LockBreak b) {
        session.insert(new LockBreakRecord(b));
    }

    /** The break of the lock {@code lockToken}, if an operator broke it. */
    public Optional<LockBreak> find(StatelessSession session, String lockToken) {
        LockBreakRecord row = lockToken == null ? null : session.get(LockBreakRecord.class, lockToken);
        return Optional.ofNullable(row).map(LockBreakRecord::toBreak);
    }

    /**
     * What {@code holder}, calling on its lock {@code lockToken} that is no longer held, is told:
     * {@code E_LEASE_LAPSED} with who broke it, when and why ({@link LockBreak#message()}) if an
     * operator broke it, else {@code lapsed}.
     */
    public static EngineRuntimeException notHeld(Optional<LockBreak> broken, String holder, Supplier<EngineRuntimeException> lapsed) {
        return broken.filter(b -> b.holder().equals(holder))
                .map(b -> EngineRuntimeException.of(ExceptionCode.E_LEASE_LAPSED, b.message())).orElseGet(lapsed);
    }

    /** As {@link #find(StatelessSession, String)}, in a transaction of its own. */
    public Optional<LockBreak> find(String lockToken) {
        return database.inTransaction(() -> "reading the break of lock " + lockToken, session -> find(session, lockToken));
    }

    /** The latest {@code max} breaks, newest first. */
    public List<LockBreak> recent(int max) {
        if (max < 1 || max > 10_000) {
            throw EngineRuntimeException.badArgument("lockBreaks max", max, "1 to 10000");
        }
        return database.inTransaction(() -> "listing lock breaks", session -> session.createSelectionQuery(
                        "from LockBreakRecord b order by b.brokenAt desc, b.lockToken", LockBreakRecord.class)
                .setMaxResults(max).getResultList().stream().map(LockBreakRecord::toBreak).toList());
    }
}
