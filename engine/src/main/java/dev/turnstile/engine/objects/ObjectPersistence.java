package dev.turnstile.engine.objects;

import dev.turnstile.api.ChangeContext.Action;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.ObjectLockInfo;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.changes.ChangeKind;
import dev.turnstile.engine.db.Database;
import dev.turnstile.engine.db.Expiry;
import dev.turnstile.engine.db.GuardedWrite;
import org.hibernate.LockMode;
import org.hibernate.StatelessSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
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
    private static final Logger log = LoggerFactory.getLogger(ObjectPersistence.class);

    private final Database database;
    private final ClassRegistry classes;
    private final ChangePreprocessors preprocessors;
    private final SystemClasses systemClasses;
    private volatile ObjectWriteListener listener;
    /** The cooperative lock's part in saves: how lock requests wait, and unlocks pass the lock on. */
    private final LockHook locks;
    /** Each database's statements for object rows: a lock request in one statement where it has one. */
    private final ObjectStatements statements;

    ObjectPersistence(Database database, ClassRegistry classes, ChangePreprocessors preprocessors, SystemClasses systemClasses,
                      LockHook locks, ObjectStatements statements) {
        this.systemClasses = systemClasses;
        this.database = database;
        this.classes = classes;
        this.preprocessors = preprocessors;
        this.locks = locks;
        this.statements = statements;
        locks.bind(new LockHook.Rows() {
            @Override
            public ObjectState read(String className, UUID id) {
                return ObjectPersistence.this.read(className, id);
            }

            @Override
            public ObjectState letGo(ObjectState passed, LockRules.Actor actor) {
                return ObjectPersistence.this.letGo(passed, actor);
            }
        });
    }

    void listener(ObjectWriteListener listener) {
        this.listener = listener;
    }

    private void notify(Transaction tx, ObjectWrite write) {
        ObjectWriteListener l = listener;
        if (l != null) {
            l.written(tx, write);
            tx.toldListener = true;
        }
    }

    /** Runs {@code work} in one transaction and tells the listener once it committed, if it wrote. */
    private <T> T committing(Supplier<String> what, LockRules.Actor actor, boolean mayLook, Function<Transaction, T> work) {
        Transaction[] ran = {null};
        T result = database.inTransaction(what, session -> {
            ran[0] = new Transaction(session, actor, mayLook);
            return work.apply(ran[0]);
        });
        ObjectWriteListener l = listener;
        if (l != null && ran[0].toldListener) {
            l.committed();
        }
        return result;
    }

    /** One SELECT: the object if it exists and is of {@code className} or a subclass. */
    ObjectState read(String className, UUID id) {
        return database.inTransaction(() -> "fetching " + className + " {" + id + "}", session -> {
            ObjectRecord record = session.get(ObjectRecord.class, id);
            if (record == null || !classes.get(session, record.className).isSubclassOf(className)) {
                throw EngineRuntimeException.objectNotFound(className, id);
            }
            return toState(session, record);
        });
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
        boolean inHost = database.inHostTransaction();
        List<ObjectState> states = locks.save(new LockHook.Save(requests, actor, inHost),
                () -> attempt(what, actor, ordered, inHost));
        for (int i = 0; i < ordered.size(); i++) {
            ordered.get(i).saved(states.get(i), mode);
        }
    }

    /** {@code write} setting who wrote the row and when, and the lock it carries after. */
    private static GuardedWrite stamped(GuardedWrite write, String user, Instant now, LockState lock) {
        return write.set("last_modifier", user)
                .set("date_last_modified", now)
                .set("lock_holder", lock.holder(), String.class)
                .set("lock_owner", lock.owner(), String.class)
                .set("lock_token", lock.token(), UUID.class)
                .set("lock_timeout", lock.timeoutSeconds(), Integer.class);
    }

    /**
     * Passes the lock {@code o}'s unlock lets go to the longest-waiting request here for it, in the
     * unlock's one statement: the row goes from this holder to the next as that request's lock would
     * have written it (holder, owner, token, timeout, LastModifier, DateLastModified), USN one on.
     * Null, and the unlock goes as before, when the unlock carries values, the lock was not this
     * actor's or has lapsed, or no request here fits ({@link LockHook#claimWaiter}).
     */
    private ObjectState passOn(Transaction tx, DefaultIndependentObject o) {
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
            boolean written = stamped(GuardedWrite.of("ts_object", "id", id).ifUsn(o.getUpdateSequenceNumber()),
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
    private ObjectState letGo(ObjectState passed, LockRules.Actor actor) {
        UUID id = passed.id();
        return database.alone(() -> "letting go of the lock on " + passed.className() + " {" + id
                + "} passed to a request that no longer waits", session -> {
            Transaction tx = new Transaction(session, actor, false);
            tx.advance(passed.dateLastModified());
            GuardedWrite write = GuardedWrite.of("ts_object", "id", id).ifUsn(passed.usn());
            locks.notifying(write, id, false);
            if (!stamped(write, actor.user(), tx.now, LockState.NONE).update(session)) {
                return null;
            }
            locks.notified(id, write, passed.usn());
            return new ObjectState(id, passed.className(), passed.usn() + 1, passed.creator(), passed.dateCreated(),
                    actor.user(), tx.now, passed.values(), LockState.NONE);
        });
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
        if (database.inHostTransaction() || listener != null) {
            return null;
        }
        return database.alone(what, statement);
    }

    /** Every unexpired cooperative lock by the database clock, soonest expiry first. */
    List<ObjectLockInfo> lockedObjects() {
        return database.inTransaction(() -> "listing cooperative locks", session -> {
            Instant now = database.now();
            return session.createSelectionQuery("select o.className, o.id, o.lockHolder, o.lockOwner, o.lockTimeout,"
                            + " o.dateLastModified from ObjectRecord o where o.lockHolder is not null", Object[].class)
                    .getResultList().stream()
                    .map(r -> new ObjectLockInfo((String) r[0], (UUID) r[1], (String) r[2], (String) r[3],
                            new LockState((String) r[2], (String) r[3], null, (Integer) r[4]).expiry((Instant) r[5])))
                    .filter(l -> Expiry.isHeld(l.expiresAt(), now))
                    .sorted(java.util.Comparator.comparing(ObjectLockInfo::expiresAt))
                    .toList();
        });
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
     * every database; a lock alone is {@link #lockInOneStatement}, on PostgreSQL. Null when the save
     * needs more than that statement: nothing was written, and it runs in a transaction as any other.
     */
    private List<ObjectState> writeAlone(Supplier<String> what, LockRules.Actor actor, List<DefaultIndependentObject> ordered,
                                         boolean inHost) {
        if (inHost || listener != null || ordered.size() != 1) {
            return null;
        }
        DefaultIndependentObject o = ordered.get(0);
        LockRules.Pending action = o.pendingLock();
        boolean lock = action.locking() && statements.locksInOneStatement() && o.getUpdateSequenceNumber() == null;
        // An unlock may carry the values it guarded (the article's lock, change, save with the unlock):
        // from the known state the guarded UPDATE is still the save's only write.
        boolean unlock = action.unlocking() && o.knownStoredValues() != null;
        if (o.isNew() || o.isPendingDelete() || (lock && !o.pendingValues().isEmpty()) || !(lock || unlock)) {
            return null;
        }
        if (unlock && o.pendingValues().isEmpty()) {
            locks.unlockingAlone(o.getId()); // a request here on its way may be passed the lock (passOn)
        }
        return database.alone(what, session -> {
            Transaction tx = new Transaction(session, actor, true);
            if (needsTransaction(tx, o)) {
                return null;
            }
            if (unlock) {
                ObjectState passed = passOn(tx, o); // to a request here that waits for it
                return List.of(passed != null ? passed : write(tx, o)); // known state: no read, one guarded UPDATE
            }
            refuseIfHeldHere(tx, o);
            ObjectState locked = lockInOneStatement(tx, o);
            return locked == null ? null : List.of(locked);
        });
    }

    /**
     * Whether saving {@code o} needs more than its one statement: a preprocessor that would run on it
     * (its writes and checks go in the save's transaction), or a user's change of an engine class
     * (refused on the transaction's look, in the words every refusal of it uses).
     */
    private boolean needsTransaction(Transaction tx, DefaultIndependentObject o) {
        DefaultClassDefinition definition = classes.get(tx.session, o.getClassName());
        return !tx.actor.engine() && systemClasses.systemClassOf(definition) != null
                || preprocessors.anyFor(definition, o.knownStoredValues(), o.pendingValues());
    }

    /**
     * A lock taken on a plain look found the row changed at its guarded write: the transaction rolls
     * back and the save looks again, up to {@code LOOKS} times, then reads FOR UPDATE.
     */
    private static final class LookAgain extends RuntimeException {
        /** Looks per save: each lost race means another writer made progress; past them the row lock decides. */
        static final int LOOKS = 3;
        static final LookAgain INSTANCE = new LookAgain();

        private LookAgain() {
            super("a lock taken on a plain look lost its race", null, false, false);
        }
    }

    /**
     * Runs engine work (a capability's own reads and writes) in one transaction, as {@code actor},
     * with the same locked-update primitive saves use.
     */
    <T> T inTransaction(Supplier<String> what, LockRules.Actor actor, Function<ObjectTransaction, T> work) {
        return committing(what, actor, false, work::apply);
    }

    private ObjectState write(Transaction tx, DefaultIndependentObject o) {
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
            refuseIfHeldHere(tx, o);
            ObjectState locked = lockInOneStatement(tx, o);
            if (locked != null) {
                return locked;
            }
        }
        ObjectState current = lookFirst ? lookForLock(tx, o) : knownOrLockedRead(tx.session, o);
        systemClasses.checkChange(classes.get(tx.session, current.className()), o.getId(), tx.actor,
                lockAction.locking() ? "lock" : lockAction.unlocking() ? "unlock" : "save");
        tx.advance(current.dateLastModified());
        return writeUpdate(tx, current, o.getClassName(), o.getId(), values -> values.putAll(o.pendingValues()),
                o.pendingLock());
    }

    /**
     * A lock request that would look at the row (USN-less, as every attempt of {@code Locking}) is
     * refused without a statement when a lock that this engine wrote, not yet expired, refuses it
     * ({@link LockRules.Pending#refusedBy}): the database would refuse it for the same reason, and
     * pollers in one process no longer load the database the holder's unlock waits on. Only
     * ever a refusal, never a grant; past the expiry, or once this engine unlocked or saw an unlock
     * fail, the request asks the database as before. The refusal is the database's, word for word.
     */
    private void refuseIfHeldHere(Transaction tx, DefaultIndependentObject o) {
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
     * The lock of a request that carries nothing else, taken in one statement on PostgreSQL: an
     * {@code UPDATE} whose {@code WHERE} holds {@link LockRules}' rule (free, the caller's, or lapsed
     * at the transaction's time: DateLastModified + LockTimeout before it) and, if it wrote nothing,
     * the row as the statement found it, from which the refusal is told. A look, then an UPDATE
     * guarded by the USN it read, left the lock free for a round trip more between one holder's
     * unlock and the next grant, and a waiter that lost the race redid both (issue 16, item 5).
     * Null when it cannot decide — another database, a request stating a USN, a user's request on an
     * engine class, a class with a preprocessor that runs on a lock, a row of another class or gone,
     * or one that other writers changed while each of {@link LookAgain#LOOKS} statements waited for
     * it — and the request looks, as before.
     */
    private ObjectState lockInOneStatement(Transaction tx, DefaultIndependentObject o) {
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
            ObjectStatements.FoundRow found = statements.lock(database, tx.session, o.getId(), o.getClassName(), pending, user, tx.now);
            if (found == null) {
                return null;
            }
            ObjectRecord row = found.row();
            boolean granted = found.granted();
            if (!row.className.equals(o.getClassName())) {
                return null;
            }
            ObjectState state = toState(tx.session, row);
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
            notify(tx, new ObjectWrite(ObjectWrite.kindOfUpdate(state.values(), state.values(), pending), o.getId(),
                    row.className, user, tx.now, row.usn - 1, row.usn, state.values(), state.values()));
            return state;
        }
        return null;
    }

    /**
     * One transaction's context: the session, who works, and the time that decides lock expiry and
     * is stamped on the row being written. That time is read inside the transaction once the row's
     * state is settled (locked, or known and guarded by its USN), never before a wait for a row
     * lock, and never earlier than the row's DateLastModified: dates never go backwards per object,
     * so a stamp cannot shorten another user's cooperative lock.
     */
    private final class Transaction implements ObjectTransaction {
        private final StatelessSession session;
        private final LockRules.Actor actor;
        private Instant now;
        private final List<Runnable> afterWrite = new ArrayList<>();
        /** Rows this transaction read FOR UPDATE and has not written since. */
        private final Map<UUID, ObjectState> lockedRows = new HashMap<>();

        /** Whether a lock request may build on a plain look at its row ({@link #lookForLock}). */
        private final boolean mayLook;
        /** Rows whose state this transaction took from a plain look, to be written guarded by their USN. */
        private final Set<UUID> lookedAt = new HashSet<>();
        /** Whether the write listener was told of a write in this transaction. */
        private boolean toldListener;

        Transaction(StatelessSession session, LockRules.Actor actor, boolean mayLook) {
            this.session = session;
            this.actor = actor;
            this.mayLook = mayLook;
            this.now = database.now();
        }

        /** Moves the transaction's time to the database clock now, and past {@code storedDateLastModified}. */
        void advance(Instant storedDateLastModified) {
            Instant t = database.now();
            if (t.isBefore(now)) {
                t = now;
            }
            if (storedDateLastModified != null && t.isBefore(storedDateLastModified)) {
                t = storedDateLastModified;
            }
            now = t;
        }

        @Override
        public StatelessSession session() {
            return session;
        }

        @Override
        public String user() {
            return actor.user();
        }

        @Override
        public Instant now() {
            return now;
        }

        @Override
        public void afterWrite(Runnable action) {
            afterWrite.add(action);
        }

        /** Runs what preprocessors asked to run once the row is written. */
        void written() {
            List<Runnable> actions = new ArrayList<>(afterWrite);
            afterWrite.clear();
            actions.forEach(Runnable::run);
        }

        @Override
        public LockedObject readLocked(String className, UUID id) {
            ObjectState state = locked(className, id);
            return new LockedObject(state.usn(), state.values());
        }

        @Override
        public Map<String, Object> updateLocked(String className, UUID id, Consumer<Map<String, Object>> change) {
            ObjectState state = locked(className, id);
            return writeUpdate(this, state, state.className(), id, change, LockRules.Pending.NONE).values();
        }

        /**
         * The row read FOR UPDATE, once per transaction: the lock holds it as read until the end, so
         * an update after a {@link #readLocked} of the same object does not read it again.
         */
        private ObjectState locked(String className, UUID id) {
            ObjectState known = lockedRows.get(id);
            if (known != null && known.className().equals(className)) {
                return known;
            }
            ObjectRecord record = record(session, className, id, LockMode.PESSIMISTIC_WRITE);
            advance(record.dateLastModified);
            ObjectState state = toState(session, record);
            lockedRows.put(id, state);
            return state;
        }
    }

    private ObjectState insert(Transaction tx, DefaultIndependentObject o) {
        StatelessSession session = tx.session;
        LockRules.Actor actor = tx.actor;
        Instant now = tx.now;
        String user = actor.user();
        DefaultClassDefinition definition = classes.get(session, o.getClassName());
        Map<String, Object> values = new LinkedHashMap<>(o.pendingValues());
        preprocessors.run(definition, Action.CREATE, o.getId(), tx, values, Map.of());
        Map<String, Object> valid = validate(session, definition, o.getId(), values);
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
        record.propValues = encode(definition, o.getId(), valid);
        record.lockHolder = lock.holder();
        record.lockOwner = lock.owner();
        record.lockToken = lock.token();
        record.lockTimeout = lock.timeoutSeconds();
        session.insert(record);
        tx.written();
        notify(tx, new ObjectWrite(ChangeKind.CREATE, record.id, record.className, user, now, null, 0L, Map.of(), valid));
        return new ObjectState(record.id, record.className, 0, user, now, user, now, valid, lock);
    }

    /**
     * Writes {@code current} changed by {@code change} and the pending lock action: lock rules,
     * preprocessors and validation first, then one {@code UPDATE … WHERE id = ? AND usn = ?}.
     */
    private ObjectState writeUpdate(Transaction tx, ObjectState current, String className, UUID id,
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
        Map<String, Object> valid = validate(session, definition, id, values);
        // Native SQL (a GuardedWrite): Hibernate re-translates an HQL update on every execution, which
        // cost more than the statement itself on H2 (docs/BENCHMARKS.md).
        GuardedWrite write = GuardedWrite.of("ts_object", "id", id).ifUsn(current.usn());
        if (pendingLock.unlocking()) {
            locks.notifying(write, id, false); // other processes' waiters
        }
        write.set("prop_values", encode(definition, id, valid));
        boolean written = stamped(write, tx.user(), tx.now, lock).update(session);
        if (!written) {
            throw tx.lookedAt.contains(id) ? LookAgain.INSTANCE : lostRace(session, className, id, current.usn());
        }
        if (pendingLock.unlocking()) {
            locks.notified(id, write, current.usn());
        }
        tx.lockedRows.remove(id); // written: what this transaction read is no longer the row
        tx.written();
        notify(tx, new ObjectWrite(ObjectWrite.kindOfUpdate(current.values(), valid, pendingLock), id, className, tx.user(),
                tx.now, current.usn(), current.usn() + 1, current.values(), valid));
        return new ObjectState(id, className, current.usn() + 1, current.creator(), current.dateCreated(),
                tx.user(), tx.now, valid, lock);
    }

    /**
     * The state the save builds on: the instance's own when it knows the stored values for the USN
     * it holds (no statement), else the row read FOR UPDATE and checked against the instance's USN.
     */
    private ObjectState knownOrLockedRead(StatelessSession session, DefaultIndependentObject o) {
        Map<String, Object> known = o.knownStoredValues();
        if (known != null) {
            return new ObjectState(o.getId(), o.getClassName(), o.getUpdateSequenceNumber(), o.getCreator(),
                    o.getDateCreated(), o.getLastModifier(), o.getDateLastModified(), known, o.lockState());
        }
        return checkedRead(session, o, LockMode.PESSIMISTIC_WRITE);
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
    private ObjectState lookForLock(Transaction tx, DefaultIndependentObject o) {
        ObjectState seen = checkedRead(tx.session, o, LockMode.NONE);
        tx.lookedAt.add(o.getId());
        return seen;
    }

    private ObjectState delete(Transaction tx, DefaultIndependentObject o) {
        StatelessSession session = tx.session;
        LockRules.Actor actor = tx.actor;
        // A fetchless or USN-less delete reads the row first: that checks the class, so a
        // reference of the wrong class cannot delete another object.
        ObjectState current = knownOrLockedRead(session, o);
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
            throw lostRace(session, o.getClassName(), o.getId(), current.usn());
        }
        tx.lockedRows.remove(o.getId());
        tx.written();
        notify(tx, new ObjectWrite(ChangeKind.DELETE, o.getId(), o.getClassName(), actor.user(), now, current.usn(), null,
                current.values(), Map.of()));
        return null;
    }

    /**
     * Whether the class enforces locks, as the database says now when it matters: when another
     * user holds a lock on the row. Another engine may have changed the setting since this one
     * cached the class, so that case reads the class (and its superclasses) afresh; the common
     * case (no lock, or one's own) costs nothing.
     */
    private boolean lockEnforced(Transaction tx, DefaultClassDefinition cached, ObjectState current) {
        LockState lock = current.lock();
        if (!lock.isHeldAt(tx.now, current.dateLastModified()) || lock.holder().equals(tx.actor.user())) {
            return cached.isLockEnforced();
        }
        return classes.fresh(tx.session, cached.getName()).isLockEnforced();
    }

    /** The values, validated and encoded; refuses a set too large for the values column. */
    private String encode(DefaultClassDefinition definition, UUID id, Map<String, Object> valid) {
        String json = PropertyCodec.encodeValues(valid);
        if (json.length() > ObjectRecord.MAX_VALUES_LENGTH) {
            throw EngineRuntimeException.badValue(definition.getName(), id, "(all properties)",
                    json.length() + " characters", "more than " + ObjectRecord.MAX_VALUES_LENGTH + " characters in all");
        }
        return json;
    }

    private Map<String, Object> validate(StatelessSession session, DefaultClassDefinition definition, UUID id,
                                         Map<String, Object> values) {
        try {
            return PropertyValues.validate(definition, id, values);
        } catch (EngineRuntimeException e) {
            if (e.getExceptionCode() != ExceptionCode.E_PROPERTY_NOT_DEFINED) {
                throw e;
            }
            // Perhaps another engine defined the property after we cached the class: look once more.
            classes.reload();
            return PropertyValues.validate(classes.get(session, definition.getName()), id, values);
        }
    }

    /** Reads the row ({@code mode}: FOR UPDATE, or a plain look) and applies the instance's USN check to it. */
    private ObjectState checkedRead(StatelessSession session, DefaultIndependentObject o, LockMode mode) {
        ObjectRecord record = record(session, o.getClassName(), o.getId(), mode);
        Long usn = o.getUpdateSequenceNumber();
        if (usn != null && usn != record.usn) {
            throw EngineRuntimeException.objectModified(o.getClassName(), o.getId(), usn, record.usn);
        }
        return toState(session, record);
    }

    /** The row read with {@code mode}, if it is an object of {@code className} or a subclass. */
    private ObjectRecord record(StatelessSession session, String className, UUID id, LockMode mode) {
        ObjectRecord record = session.get(ObjectRecord.class, id, mode);
        if (record == null || !classes.get(session, record.className).isSubclassOf(className)) {
            throw EngineRuntimeException.objectNotFound(className, id);
        }
        return record;
    }

    /** Why a guarded statement touched no row: the object is gone, or its USN moved on. */
    private static EngineRuntimeException lostRace(StatelessSession session, String className, UUID id, long usn) {
        Long stored = session.createSelectionQuery("select o.usn from ObjectRecord o where o.id = :id", Long.class)
                .setParameter("id", id)
                .uniqueResult();
        return stored == null
                ? EngineRuntimeException.objectNotFound(className, id)
                : EngineRuntimeException.objectModified(className, id, usn, stored);
    }

    private ObjectState toState(StatelessSession session, ObjectRecord record) {
        List<String> unknown = new ArrayList<>();
        Map<String, Object> values = PropertyCodec.decodeValues(record.propValues,
                classes.get(session, record.className), unknown);
        if (!unknown.isEmpty()) {
            // Another engine added properties to the class since we cached it.
            classes.reload();
            unknown.clear();
            values = PropertyCodec.decodeValues(record.propValues, classes.get(session, record.className), unknown);
            if (!unknown.isEmpty()) {
                log.warn("{} {{}} holds values of undefined properties {}; ignored", record.className, record.id, unknown);
            }
        }
        LockState lock = record.lockHolder == null ? LockState.NONE
                : new LockState(record.lockHolder, record.lockOwner, record.lockToken, record.lockTimeout);
        return new ObjectState(record.id, record.className, record.usn, record.creator, record.dateCreated,
                record.lastModifier, record.dateLastModified, values, lock);
    }
}
