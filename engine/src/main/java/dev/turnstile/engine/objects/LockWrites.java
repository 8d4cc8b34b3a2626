package dev.turnstile.engine.objects;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.engine.db.Database;
import dev.turnstile.engine.db.GuardedWrite;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * The writes of a save that only a cooperative lock makes: a lock request decided in one statement
 * or refused by what this engine wrote, an unlock that passes the lock to a request waiting here,
 * and the letting go of a lock passed to nobody. The rules are {@link LockRules}'; who waits is
 * the {@link LockHook}'s to say.
 */
final class LockWrites {
    private final Database database;
    private final ClassRegistry classes;
    private final ChangePreprocessors preprocessors;
    private final SystemClasses systemClasses;
    private final ObjectRows rows;
    private final LockHook locks;
    private final ObjectStatements statements;

    LockWrites(Database database, ClassRegistry classes, ChangePreprocessors preprocessors, SystemClasses systemClasses,
               ObjectRows rows, LockHook locks, ObjectStatements statements) {
        this.database = database;
        this.classes = classes;
        this.preprocessors = preprocessors;
        this.systemClasses = systemClasses;
        this.rows = rows;
        this.locks = locks;
        this.statements = statements;
    }

    /** Whether a lock request that carries nothing else is decided in one statement on this database. */
    boolean locksInOneStatement() {
        return statements.locksInOneStatement();
    }

    /**
     * Whether saving {@code o} needs more than its one statement: a preprocessor that would run on it
     * (its writes and checks go in the save's transaction), or a user's change of an engine class
     * (refused on the transaction's look, in the words every refusal of it uses).
     */
    boolean needsTransaction(SaveTransaction tx, DefaultIndependentObject o) {
        DefaultClassDefinition definition = classes.get(tx.session, o.getClassName());
        return !tx.actor.engine() && systemClasses.systemClassOf(definition) != null
                || preprocessors.anyFor(definition, o.knownStoredValues(), o.pendingValues());
    }

    /**
     * A lock request that would look at the row (USN-less, as every attempt of {@code Locking}) is
     * refused without a statement when a lock that this engine wrote, not yet expired, refuses it
     * ({@link LockRules.Pending#refusedBy}): the database would refuse it for the same reason, and
     * pollers in one process no longer load the database the holder's unlock waits on. Only
     * ever a refusal, never a grant; past the expiry, or once this engine unlocked or saw an unlock
     * fail, the request asks the database as before. The refusal is the database's, word for word.
     */
    void refuseIfHeldHere(SaveTransaction tx, DefaultIndependentObject o) {
        LockHook.Held here = locks.heldHere(o.getId(), tx.now);
        if (here == null || !o.pendingLock().refusedBy(here.lock(), tx.actor.user())) {
            return;
        }
        DefaultClassDefinition stored = classes.get(tx.session, here.className());
        if (!stored.isSubclassOf(o.getClassName())) {
            return; // the database tells this caller what it may know
        }
        systemClasses.checkChange(stored, o.getId(), tx.actor, "lock");
        throw EngineRuntimeException.objectLocked(o.getClassName(), o.getId(), here.lock().holder(), here.lock().owner(),
                here.expiry());
    }

    /**
     * The lock of a request that carries nothing else, taken in one statement where the database
     * returns what an UPDATE wrote (PostgreSQL, H2): an {@code UPDATE} whose {@code WHERE} holds
     * {@link LockRules}' rule (free, the caller's, or lapsed at the request's time: DateLastModified
     * + LockTimeout before it) and, if it wrote nothing, the row as found, from which the refusal is
     * told. A look, then an UPDATE guarded by the USN it read, left the lock free for a round trip
     * more between one holder's unlock and the next grant, and a waiter that lost the race redid both
     * (issue 16, item 5).
     * Null when it cannot decide — MariaDB, a request stating a USN, a user's request on an
     * engine class, a class with a preprocessor that runs on a lock, a row of another class or gone,
     * or one that other writers changed while each of {@link LookAgain#LOOKS} statements waited for
     * it — and the request looks, as before.
     */
    ObjectState lockInOneStatement(SaveTransaction tx, DefaultIndependentObject o) {
        if (!statements.locksInOneStatement() || !o.pendingValues().isEmpty() || o.getUpdateSequenceNumber() != null) {
            return null; // a USN stated is checked on a look (checkedRead), as a save's
        }
        if (needsTransaction(tx, o)) {
            return null;
        }
        LockRules.Pending pending = o.pendingLock();
        String user = tx.actor.user();
        for (int look = 1; look <= LookAgain.LOOKS; look++) {
            tx.advance(null);
            ObjectStatements.FoundRow found = statements.lock(tx.session, o.getId(), o.getClassName(), pending, user, tx.now);
            if (found == null) {
                return null;
            }
            ObjectRecord row = found.row();
            boolean granted = found.granted();
            if (!row.className.equals(o.getClassName())) {
                return null;
            }
            ObjectState state = rows.toState(tx.session, row);
            if (!granted) {
                // The rule on the row as found: its refusal, word for word. If it would grant, the row
                // was found in the statement's snapshot, before the writer the UPDATE waited for (a
                // hand-over: another waiter took the lock): the next statement's snapshot has it.
                LockRules.next(o.getClassName(), o.getId(), false, state.lock(), row.dateLastModified, pending, tx.actor, tx.now);
                continue;
            }
            tx.advance(row.dateLastModified);
            tx.lockedRows.remove(o.getId());
            tx.written();
            tx.tell(new ObjectWrite(ObjectWrite.kindOfUpdate(state.values(), state.values(), pending), o.getId(),
                    row.className, user, tx.now, row.usn - 1, row.usn, state.values(), state.values()));
            return state;
        }
        return null;
    }

    /**
     * Passes the lock {@code o}'s unlock lets go to the longest-waiting request here for it, in the
     * unlock's one statement: the row goes from this holder to the next as that request's lock would
     * have written it (holder, owner, token, timeout, LastModifier, DateLastModified), USN one on.
     * Null, and the unlock goes as before, when the unlock carries values, the lock was not this
     * actor's or has lapsed, or no request here fits ({@link LockHook#claimWaiter}).
     */
    ObjectState passOn(SaveTransaction tx, DefaultIndependentObject o) {
        Map<String, Object> known = o.knownStoredValues();
        LockState held = o.lockState();
        UUID id = o.getId();
        if (!o.pendingValues().isEmpty() || !tx.actor.user().equals(held.holder()) || !o.pendingLock().letsGoOf(held)) {
            return null; // not a holder's unlock of the lock the instance shows: refused as before
        }
        tx.advance(o.getDateLastModified());
        if (!held.isHeldAt(tx.now, o.getDateLastModified())) {
            return null; // lapsed: the unlock is refused as before
        }
        DefaultClassDefinition stored = classes.get(tx.session, o.getClassName());
        if (preprocessors.anyFor(stored, null, Map.of())) {
            return null; // the next holder's lock would run them, in its own transaction
        }
        boolean systemClass = systemClasses.systemClassOf(stored) != null;
        LockHook.Waiter next = locks.claimWaiter(id, w -> stored.isSubclassOf(w.className()) && (w.actor().engine() || !systemClass));
        if (next == null) {
            return null;
        }
        ObjectState passed = null;
        try {
            LockState lock = LockRules.next(o.getClassName(), id, false, LockState.NONE, tx.now, next.request(), next.actor(), tx.now);
            boolean written = ObjectRows.stamped(GuardedWrite.of("ts_object", "id", id).ifUsn(o.getUpdateSequenceNumber()),
                    next.actor().user(), tx.now, lock).update(tx.session);
            if (written) {
                passed = new ObjectState(id, o.getClassName(), o.getUpdateSequenceNumber() + 1, o.getCreator(), o.getDateCreated(),
                        next.actor().user(), tx.now, known, lock);
            }
            return passed;
        } finally {
            next.decide(passed); // committed (the statement commits itself), or not written: the waiter asks as before
        }
    }

    /**
     * An unlock of the row as {@code passed} (a lock passed to a request that no longer waits for it)
     * left it, by that request's {@code actor}, telling waiters as any unlock does; null if another
     * writer moved the row on (a breaker, say): nothing of the request's to let go.
     */
    ObjectState letGo(ObjectState passed, LockRules.Actor actor) {
        UUID id = passed.id();
        return database.alone(() -> "letting go of the lock on " + passed.className() + " {" + id
                + "} passed to a request that no longer waits", session -> {
            Instant now = SaveTransaction.notBefore(database.now(), passed.dateLastModified()); // as a save's time is
            GuardedWrite write = GuardedWrite.of("ts_object", "id", id).ifUsn(passed.usn());
            locks.notifying(write, id, false);
            if (!ObjectRows.stamped(write, actor.user(), now, LockState.NONE).update(session)) {
                return null;
            }
            locks.notified(id, write, passed.usn());
            return new ObjectState(id, passed.className(), passed.usn() + 1, passed.creator(), passed.dateCreated(),
                    actor.user(), now, passed.values(), LockState.NONE);
        });
    }
}
