package dev.turnstile.engine.objects;

import dev.turnstile.engine.db.Database;
import org.hibernate.LockMode;
import org.hibernate.StatelessSession;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * One transaction's context: the session, who works, and the time that decides lock expiry and
 * is stamped on the row being written. That time is read inside the transaction once the row's
 * state is settled (locked, or known and guarded by its USN), never before a wait for a row
 * lock, and never earlier than the row's DateLastModified: dates never go backwards per object,
 * so a stamp cannot shorten another user's cooperative lock.
 */
final class SaveTransaction implements ObjectTransaction {
    private final Database database;
    private final ObjectRows rows;
    private final ObjectPersistence writer;
    private final ObjectWriteListener listener;
    final StatelessSession session;
    final LockRules.Actor actor;
    Instant now;
    private final List<Runnable> afterWrite = new ArrayList<>();
    /** Rows this transaction read FOR UPDATE and has not written since. */
    final Map<UUID, ObjectState> lockedRows = new HashMap<>();

    /** Whether a lock request may build on a plain look at its row ({@code ObjectPersistence.lookForLock}). */
    final boolean mayLook;
    /** Rows whose state this transaction took from a plain look, to be written guarded by their USN. */
    final Set<UUID> lookedAt = new HashSet<>();
    /** Whether the write listener was told of a write in this transaction. */
    private boolean toldListener;

    /**
     * {@code writer} writes the updates of {@link #updateLocked}; {@code listener} (or null) is
     * told of every write ({@link #tell}).
     */
    SaveTransaction(Database database, ObjectRows rows, ObjectPersistence writer, ObjectWriteListener listener,
                    StatelessSession session, LockRules.Actor actor, boolean mayLook) {
        this.database = database;
        this.rows = rows;
        this.writer = writer;
        this.listener = listener;
        this.session = session;
        this.actor = actor;
        this.mayLook = mayLook;
        this.now = database.now();
    }

    /** Moves the transaction's time to the database clock now, and past {@code storedDateLastModified}. */
    void advance(Instant storedDateLastModified) {
        now = notBefore(notBefore(database.now(), now), storedDateLastModified);
    }

    /** {@code t}, or {@code floor} if that is later (a null floor: {@code t}): dates never go backwards per object. */
    static Instant notBefore(Instant t, Instant floor) {
        return floor != null && t.isBefore(floor) ? floor : t;
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
        return writer.writeUpdate(this, state, state.className(), id, change, LockRules.Pending.NONE).values();
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
        database.host().claim(id, () -> "Locking " + className + " {" + id + "}");
        ObjectRecord record = rows.record(session, className, id, LockMode.PESSIMISTIC_WRITE);
        advance(record.dateLastModified);
        ObjectState state = rows.toState(session, record);
        lockedRows.put(id, state);
        return state;
    }

    /** Tells the write listener, if there is one, of {@code write} in this transaction. */
    void tell(ObjectWrite write) {
        if (listener != null) {
            listener.written(this, write);
            toldListener = true;
        }
    }

    /** Once this transaction committed: tells the listener, if it was told of a write. */
    void committed() {
        if (toldListener) {
            listener.committed();
        }
    }
}
