package dev.turnstile.engine.objects;

import dev.turnstile.api.ChangeContext.Action;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.LockBreak;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.changes.ChangeKind;
import dev.turnstile.engine.breaks.LockBreaks;
import dev.turnstile.engine.db.Database;
import dev.turnstile.engine.db.GuardedWrite;
import org.hibernate.LockMode;
import org.hibernate.StatelessSession;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Reads and writes objects: the update-sequence-number protocol lives here and nowhere else.
 *
 * <p>A conditional save of an instance whose stored state is known is one statement:
 * {@code UPDATE … SET usn = n+1 … WHERE id = ? AND usn = n}. Zero rows means another writer won
 * (or the object is gone); one more SELECT tells which, on that failure path only. Where the
 * stored state is not known (fetchless instances, null USN) the row is read {@code FOR UPDATE}
 * first so pending values merge onto the latest state and the USN check still holds.
 */
final class ObjectPersistence {
    private final Database database;
    private final ClassRegistry classes;
    private final ChangePreprocessors preprocessors;
    private final SystemClasses systemClasses;
    private volatile ObjectWriteListener listener;
    /** The cooperative lock's part in saves: how lock requests wait, and unlocks pass the lock on. */
    private final LockHook locks;
    private final ObjectRows rows;
    /** The writes only a cooperative lock makes (a lock in one statement, a pass, a let-go). */
    private final LockWrites lockWrites;

    private final Operations operations;
    /** Where an operator's break of a cooperative lock is recorded, and its holder finds it. */
    private final LockBreaks breaks;
    /** The cooperative locks as operators see them, and their holders are told of breaks. */
    final ObjectLocks objectLocks;

    ObjectPersistence(Database database, ClassRegistry classes, ChangePreprocessors preprocessors, SystemClasses systemClasses,
                      LockHook locks, ObjectStatements statements, Operations operations, LockBreaks breaks) {
        this.operations = operations;
        this.breaks = breaks;
        this.objectLocks = new ObjectLocks(database, breaks);
        this.systemClasses = systemClasses;
        this.database = database;
        this.classes = classes;
        this.preprocessors = preprocessors;
        this.locks = locks;
        this.rows = new ObjectRows(classes);
        this.lockWrites = new LockWrites(database, classes, preprocessors, systemClasses, rows, locks, statements);
        locks.bind(new LockHook.Rows() {
            @Override
            public ObjectState read(String className, UUID id) {
                return ObjectPersistence.this.read(className, id);
            }

            @Override
            public ObjectState letGo(ObjectState passed, LockRules.Actor actor) {
                return lockWrites.letGo(passed, actor);
            }
        });
    }

    void listener(ObjectWriteListener listener) {
        this.listener = listener;
    }

    /** A transaction of this engine's saves, told to the write listener set now. */
    private SaveTransaction transaction(StatelessSession session, LockRules.Actor actor, boolean mayLook) {
        return new SaveTransaction(database, rows, this, listener, session, actor, mayLook);
    }

    /** Runs {@code work} in one transaction and tells the listener once it committed, if it wrote. */
    private <T> T committing(Supplier<String> what, LockRules.Actor actor, boolean mayLook, Function<SaveTransaction, T> work) {
        SaveTransaction[] ran = {null};
        T result = database.inTransaction(what, session -> {
            ran[0] = transaction(session, actor, mayLook);
            return work.apply(ran[0]);
        });
        ran[0].committed();
        return result;
    }

    /** One SELECT: the object if it exists and is of {@code className} or a subclass. */
    ObjectState read(String className, UUID id) {
        return database.inTransaction(() -> "fetching " + className + " {" + id + "}",
                session -> rows.toState(session, rows.record(session, className, id, LockMode.NONE)));
    }

    /** Saves every object in one transaction, then updates the instances; all or nothing. */
    void save(List<DefaultIndependentObject> objects, LockRules.Actor actor, RefreshMode mode) {
        List<DefaultIndependentObject> ordered = new ArrayList<>(objects);
        // One global order of row locks, so two batches over the same objects cannot deadlock.
        ordered.sort(Comparator.comparing(DefaultIndependentObject::getId));
        Set<UUID> seen = new HashSet<>();
        for (DefaultIndependentObject o : ordered) {
            if (!seen.add(o.getId())) {
                throw EngineRuntimeException.badArgument("batch", o.toString(), "the same object appears twice");
            }
        }
        Supplier<String> what = () -> ordered.size() == 1 ? "saving " + ordered.get(0) : "saving a batch of " + ordered.size();
        List<LockHook.Request> requests = ordered.stream().map(o -> new LockHook.Request(o.getId(), o.getClassName(),
                o.pendingLock(), !o.pendingValues().isEmpty(), o.getUpdateSequenceNumber())).toList();
        boolean inHost = database.host().isActive();
        if (inHost) {
            ordered.forEach(o -> database.host().claim(o.getId(), () -> "Saving " + o));
        } else if (!actor.engine() && ordered.stream().allMatch(o -> o.pendingLock() == LockRules.Pending.NONE)
                && ordered.stream().anyMatch(o -> o.isNew() || o.isPendingDelete() || !o.pendingValues().isEmpty())) {
            database.host().outside(what); // the application's data, not a lock: the host may want it in its transaction
        }
        Supplier<List<ObjectState>> saving = () -> locks.save(new LockHook.Save(requests, actor, inHost), () -> attempt(what, actor, ordered, inHost));
        DefaultIndependentObject one = ordered.size() == 1 ? ordered.get(0) : null;
        String operation = one == null ? "batch" : one.pendingLock().locking() ? "lock" : one.pendingLock().unlocking() ? "unlock" : "save";
        // The application's saves are observed; the engine's own are inside the operation they serve (a take).
        List<ObjectState> states;
        try {
            states = actor.engine() ? saving.get()
                    : operations.run("turnstile.object.save", saving, "operation", operation, "class", one == null ? "(batch)" : one.getClassName());
        } catch (EngineRuntimeException e) {
            throw objectLocks.toldOfBreak(e, ordered, actor);
        }
        for (int i = 0; i < ordered.size(); i++) {
            ordered.get(i).saved(states.get(i), mode);
        }
    }

    /** One attempt at the save: alone if it can be, else a transaction, looked at again while others moved the rows on. */
    private List<ObjectState> attempt(Supplier<String> what, LockRules.Actor actor, List<DefaultIndependentObject> ordered,
                                      boolean inHost) {
        List<ObjectState> states = writeAlone(what, actor, ordered, inHost);
        for (int look = 1; states == null; look++) {
            try {
                // In the host's transaction nothing can be rolled back to go again: decide under the row lock there.
                states = writeAll(what, actor, ordered, look <= LookAgain.LOOKS && !inHost);
            } catch (LookAgain raced) {
                // Rolled back, nothing written; another writer moved the row on since the look: look again.
            }
        }
        return states;
    }

    /**
     * Engine work that writes object rows in one statement that commits itself (a capability's own
     * arithmetic in SQL, such as a dispenser's take), or null without running it: inside the
     * host's transaction (which decides the commit), or while a change feed records every write in
     * the writing transaction (a statement of the capability's cannot record it).
     */
    <T> T aloneUnrecorded(Supplier<String> what, Function<StatelessSession, T> statement) {
        if (database.host().isActive() || listener != null) {
            return null;
        }
        return database.alone(what, statement);
    }

    private List<ObjectState> writeAll(Supplier<String> what, LockRules.Actor actor, List<DefaultIndependentObject> ordered,
                                       boolean mayLook) {
        return committing(what, actor, mayLook, tx -> {
            List<ObjectState> written = new ArrayList<>();
            for (DefaultIndependentObject o : ordered) {
                written.add(write(tx, o));
            }
            return written;
        });
    }

    /**
     * A lock that carries nothing else, or an unlock with or without the values it guarded, outside
     * the host's transaction and with no change feed to record it in, as one statement that commits
     * itself: a lock+unlock pair is then two round trips, as ShedLock's two autocommitted UPDATEs,
     * where two transactions made it four (issue 16, item 5). An unlock is its guarded UPDATE on
     * every database; a lock alone is {@link LockWrites#lockInOneStatement}, on PostgreSQL and H2.
     * Null when the save needs more than that statement: nothing was written, and it runs in a
     * transaction as any other.
     */
    private List<ObjectState> writeAlone(Supplier<String> what, LockRules.Actor actor, List<DefaultIndependentObject> ordered,
                                         boolean inHost) {
        if (inHost || listener != null || ordered.size() != 1 || ordered.get(0).pendingLock().breaking()) {
            return null; // a break is recorded in the transaction that unlocks
        }
        DefaultIndependentObject o = ordered.get(0);
        LockRules.Pending action = o.pendingLock();
        boolean lock = action.locking() && lockWrites.locksInOneStatement() && o.getUpdateSequenceNumber() == null;
        // From the known state a save's only write is its guarded UPDATE: an unlock, alone or with the
        // values it guarded (the article's lock, change, save with the unlock), or values alone (a
        // first writer's save with its remembered USN).
        boolean fromKnownState = !action.locking() && o.knownStoredValues() != null;
        if (o.isNew() || o.isPendingDelete() || (lock && !o.pendingValues().isEmpty()) || !(lock || fromKnownState)) {
            return null;
        }
        if (action.unlocking() && o.pendingValues().isEmpty()) {
            locks.unlockingAlone(o.getId()); // a request here on its way may be passed the lock (LockWrites.passOn)
        }
        return database.alone(what, session -> {
            SaveTransaction tx = transaction(session, actor, true);
            if (lockWrites.needsTransaction(tx, o)) {
                return null;
            }
            if (fromKnownState) {
                // An unlock passes the lock to a request here that waits for it, if one does.
                ObjectState passed = action.unlocking() ? lockWrites.passOn(tx, o) : null;
                return List.of(passed != null ? passed : write(tx, o)); // known state: no read, one guarded UPDATE
            }
            lockWrites.refuseIfHeldHere(tx, o);
            ObjectState locked = lockWrites.lockInOneStatement(tx, o);
            return locked == null ? null : List.of(locked);
        });
    }

    /**
     * Runs engine work (a capability's own reads and writes) in one transaction, as {@code actor},
     * with the same locked-update primitive saves use.
     */
    <T> T inTransaction(Supplier<String> what, LockRules.Actor actor, Function<ObjectTransaction, T> work) {
        return committing(what, actor, false, work::apply);
    }

    private ObjectState write(SaveTransaction tx, DefaultIndependentObject o) {
        if (o.isPendingDelete()) {
            return delete(tx, o);
        }
        if (o.isNew()) {
            systemClasses.checkChange(classes.get(tx.session, o.getClassName()), o.getId(), tx.actor, "create");
            tx.advance(null);
            return insert(tx, o);
        }
        LockRules.Pending lockAction = o.pendingLock();
        boolean lookFirst = lockAction.locking() && tx.mayLook && o.knownStoredValues() == null;
        if (lookFirst) {
            lockWrites.refuseIfHeldHere(tx, o);
            ObjectState locked = lockWrites.lockInOneStatement(tx, o);
            if (locked != null) {
                return locked;
            }
        }
        ObjectState current = lookFirst ? lookForLock(tx, o) : rows.knownOrLockedRead(tx.session, o);
        systemClasses.checkChange(classes.get(tx.session, current.className()), o.getId(), tx.actor,
                lockAction.locking() ? "lock" : lockAction.unlocking() ? "unlock" : "save");
        tx.advance(current.dateLastModified());
        return writeUpdate(tx, current, o.getClassName(), o.getId(), values -> values.putAll(o.pendingValues()),
                o.pendingLock());
    }

    private ObjectState insert(SaveTransaction tx, DefaultIndependentObject o) {
        StatelessSession session = tx.session;
        LockRules.Actor actor = tx.actor;
        Instant now = tx.now;
        String user = actor.user();
        DefaultClassDefinition definition = classes.get(session, o.getClassName());
        Map<String, Object> values = new LinkedHashMap<>(o.pendingValues());
        preprocessors.run(definition, Action.CREATE, o.getId(), tx, values, Map.of());
        Map<String, Object> valid = rows.validate(session, definition, o.getId(), values);
        LockState lock = LockRules.next(o.getClassName(), o.getId(), definition.isLockEnforced(), LockState.NONE, null,
                o.pendingLock(), actor, now);
        ObjectRecord record = new ObjectRecord();
        record.id = o.getId();
        record.className = o.getClassName();
        record.usn = 0;
        record.creator = user;
        record.dateCreated = now;
        record.lastModifier = user;
        record.dateLastModified = now;
        record.propValues = rows.encode(definition, o.getId(), valid);
        record.lockHolder = lock.holder();
        record.lockOwner = lock.owner();
        record.lockToken = lock.token();
        record.lockTimeout = lock.timeoutSeconds();
        session.insert(record);
        tx.written();
        tx.tell(new ObjectWrite(ChangeKind.CREATE, record.id, record.className, user, now, null, 0L, Map.of(), valid));
        return new ObjectState(record.id, record.className, 0, user, now, user, now, valid, lock);
    }

    /**
     * Writes {@code current} changed by {@code change} and the pending lock action: lock rules,
     * preprocessors and validation first, then one {@code UPDATE … WHERE id = ? AND usn = ?}.
     */
    ObjectState writeUpdate(SaveTransaction tx, ObjectState current, String className, UUID id,
                                    Consumer<Map<String, Object>> change, LockRules.Pending pendingLock) {
        StatelessSession session = tx.session;
        Map<String, Object> base = current.values();
        DefaultClassDefinition definition = classes.get(session, className);
        // Enforcement matters only to a plain save; a lock or unlock is decided by the lock alone.
        boolean enforced = !pendingLock.locking() && !pendingLock.unlocking() && lockEnforced(tx, definition, current);
        LockState lock = LockRules.next(className, id, enforced, current.lock(), current.dateLastModified(), pendingLock,
                tx.actor, tx.now);
        Map<String, Object> values = new LinkedHashMap<>(base);
        change.accept(values);
        preprocessors.run(definition, Action.UPDATE, id, tx, values, base);
        Map<String, Object> valid = rows.validate(session, definition, id, values);
        // Native SQL (a GuardedWrite): Hibernate re-translates an HQL update on every execution, which
        // cost more than the statement itself on H2 (docs/BENCHMARKS.md).
        GuardedWrite write = GuardedWrite.of("ts_object", "id", id).ifUsn(current.usn());
        if (pendingLock.unlocking()) {
            locks.notifying(write, id, false); // other processes' waiters
        }
        if (!valid.equals(base)) { // a lock or an unlock alone: the row, guarded by its USN, holds these values already
            write.set("prop_values", rows.encode(definition, id, valid));
        }
        boolean written = ObjectRows.stamped(write, tx.user(), tx.now, lock).update(session);
        if (!written) {
            throw tx.lookedAt.contains(id) ? LookAgain.INSTANCE : ObjectRows.lostRace(session, className, id, current.usn());
        }
        if (pendingLock.unlocking()) {
            locks.notified(id, write, current.usn());
        }
        if (pendingLock.breaking()) {
            breaks.record(session, new LockBreak(LockBreak.Kind.OBJECT, current.lock().token().toString(), current.lock().holder(),
                    className + " {" + id + "}", tx.user(), tx.now, pendingLock.breakReason()));
        }
        tx.lockedRows.remove(id); // written: what this transaction read is no longer the row
        tx.written();
        tx.tell(new ObjectWrite(ObjectWrite.kindOfUpdate(current.values(), valid, pendingLock), id, className, tx.user(),
                tx.now, current.usn(), current.usn() + 1, current.values(), valid));
        return new ObjectState(id, className, current.usn() + 1, current.creator(), current.dateCreated(),
                tx.user(), tx.now, valid, lock);
    }

    /**
     * The state a lock request that must read the row (fetchless or USN-less, as every attempt of
     * {@code Locking}) builds on: the row read without the row lock, and the write guarded by its USN.
     * Read FOR UPDATE, every attempt held the row from its read to its commit or rollback, across
     * client round trips, and the holder's unlock queued behind pollers (4 threads on one lock: 0.66x
     * ShedLock's pairs; 2 processes: 0.17x). Now a refusal takes no row lock, and a grant holds it only
     * from its UPDATE to its commit. If the USN moved since the look, the save goes again
     * ({@link LookAgain}), so a USN-less save still merges onto the latest state.
     */
    private ObjectState lookForLock(SaveTransaction tx, DefaultIndependentObject o) {
        ObjectState seen = rows.checkedRead(tx.session, o, LockMode.NONE);
        tx.lookedAt.add(o.getId());
        return seen;
    }

    private ObjectState delete(SaveTransaction tx, DefaultIndependentObject o) {
        StatelessSession session = tx.session;
        LockRules.Actor actor = tx.actor;
        // A fetchless or USN-less delete reads the row first: that checks the class, so a
        // reference of the wrong class cannot delete another object.
        ObjectState current = rows.knownOrLockedRead(session, o);
        systemClasses.checkChange(classes.get(session, current.className()), o.getId(), actor, "delete");
        tx.advance(current.dateLastModified());
        Instant now = tx.now;
        DefaultClassDefinition definition = classes.get(session, o.getClassName());
        LockRules.checkDelete(o.getClassName(), o.getId(), lockEnforced(tx, definition, current), current.lock(),
                current.dateLastModified(), actor, now);
        preprocessors.run(definition, Action.DELETE, o.getId(), tx, new LinkedHashMap<>(current.values()), current.values());
        GuardedWrite write = GuardedWrite.of("ts_object", "id", o.getId()).ifUsn(current.usn());
        if (current.lock().exists()) {
            locks.notifying(write, o.getId(), true); // its waiters learn it is gone
        }
        if (!write.delete(session)) {
            throw ObjectRows.lostRace(session, o.getClassName(), o.getId(), current.usn());
        }
        tx.lockedRows.remove(o.getId());
        tx.written();
        tx.tell(new ObjectWrite(ChangeKind.DELETE, o.getId(), o.getClassName(), actor.user(), now, current.usn(), null,
                current.values(), Map.of()));
        return null;
    }

    /**
     * Whether the class enforces locks, as the database says now when it matters: when another
     * user holds a lock on the row. Another engine may have changed the setting since this one
     * cached the class, so that case reads the class (and its superclasses) afresh; the common
     * case (no lock, or one's own) costs nothing.
     */
    private boolean lockEnforced(SaveTransaction tx, DefaultClassDefinition cached, ObjectState current) {
        LockState lock = current.lock();
        if (!lock.isHeldAt(tx.now, current.dateLastModified()) || lock.holder().equals(tx.actor.user())) {
            return cached.isLockEnforced();
        }
        return classes.fresh(tx.session, cached.getName()).isLockEnforced();
    }
}
