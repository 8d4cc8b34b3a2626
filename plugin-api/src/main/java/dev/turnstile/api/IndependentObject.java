package dev.turnstile.api;

import java.time.Instant;
import java.util.UUID;

/**
 * An object of the object store. Changes ({@code putValue}, {@link #delete()}) are pending on the
 * instance until {@link #save(RefreshMode)} applies them in one transaction. A save is conditional
 * on the instance's update sequence number (USN): if another writer saved first, it fails with
 * {@link ExceptionCode#E_OBJECT_MODIFIED} and writes nothing. A null USN makes the save
 * unprotected (last writer wins).
 */
public interface IndependentObject {
    /** The object's id. */
    UUID getId();

    /** The object's class. */
    String getClassName();

    /** The fetched values and the pending changes of this instance. */
    Properties getProperties();

    /** Null for fetchless instances, or after {@link #setUpdateSequenceNumber(Long) set to null}. */
    Long getUpdateSequenceNumber();

    /** Null turns the next save and fetch into unprotected ones. */
    void setUpdateSequenceNumber(Long usn);

    /** The user whose session created the object. */
    String getCreator();

    /** When the object was created, by the database clock. */
    Instant getDateCreated();

    /** The user whose session saved the object last. */
    String getLastModifier();

    /** When the object was saved last, by the database clock; never goes backwards. */
    Instant getDateLastModified();

    /**
     * Reads the filtered properties from the database into this instance. With a non-null local USN
     * that no longer matches the stored one it fails with {@link ExceptionCode#E_OBJECT_MODIFIED}
     * and changes nothing. As in FileNet, a fetch replaces the cached values of the properties it
     * fetches and drops their pending {@code putValue}s (so a value computed from a lost race is not
     * saved again after the fetch); pending values of other properties and a pending lock, unlock or
     * delete are kept, and the USN becomes the stored one.
     */
    void fetchProperties(PropertyFilter filter);

    /**
     * Replaces the instance's state with the stored one, whatever its USN, and drops every pending
     * change ({@code putValue}, lock, unlock, delete); afterwards only the filtered properties are
     * visible.
     */
    void refresh(PropertyFilter filter);

    /** Takes the stored state whatever the USN, and drops every pending change. */
    default void refresh() {
        refresh(PropertyFilter.ALL);
    }

    /** Marks the object for deletion at the next save (which is USN-checked like any other). */
    void delete();

    /**
     * Applies the pending changes in one transaction. A refused save (a stale USN, a lock held by
     * another user, a bad value) writes nothing and keeps the pending changes, so the caller can
     * fetch, fix and save again or {@link #clearPendingActions() clear} them.
     */
    void save(RefreshMode refreshMode);

    /** Whether this instance has changes, a lock, an unlock or a delete waiting for {@link #save}. */
    boolean isPendingSave();

    /** Drops every pending change ({@code putValue}, delete, lock, unlock); the fetched state stays. */
    void clearPendingActions();

    // --- cooperative locks: lock and unlock are pending until save, like every change ---

    /**
     * Locks the object at the next save for {@code timeoutSeconds}, held by the session's user;
     * {@code owner} is free, informational text of at most {@value #MAX_LOCK_OWNER_LENGTH}
     * characters. The holder locking again refreshes the timeout. Only CustomObject, Document and
     * Folder classes are lockable ({@link ExceptionCode#E_OBJECT_NOT_LOCKABLE}); an unexpired lock of
     * another user fails the save with {@link ExceptionCode#E_OBJECT_LOCKED}.
     */
    void lock(int timeoutSeconds, String owner);

    /**
     * As {@link #lock}, but a new lock or none: the save fails with {@link ExceptionCode#E_OBJECT_LOCKED}
     * while anyone holds an unexpired lock, the session's own user too (the same account on another
     * node, say), where {@link #lock} would refresh the holder's lock and let both go on. For work
     * that must run alone; {@link dev.turnstile.api.retry.Locking}'s helpers lock so.
     */
    void lockExclusively(int timeoutSeconds, String owner);

    /**
     * Unlocks the object at the next save: by its holder, or by a session with the lock-breaking
     * role ({@link ExceptionCode#E_ACCESS_DENIED} otherwise); {@link ExceptionCode#E_OBJECT_NOT_LOCKED}
     * if it holds no unexpired lock. It lets go of the lock this instance shows ({@link #getLockToken}),
     * never of one taken since: if the object carries another lock now, the save is
     * {@link ExceptionCode#E_OBJECT_NOT_LOCKED} and writes nothing. An instance that shows no lock
     * (fetchless) lets go of whatever lock the session may unlock.
     */
    void unlock();

    /**
     * Breaks another user's lock at the next save — an abandoned one — as a session with the
     * lock-breaking role ({@code E_ACCESS_DENIED} at once without it), saying why (1 to 200
     * characters, {@code E_BAD_VALUE} at once otherwise): an {@link #unlock} of the lock this
     * instance shows, recorded with the save as a {@link LockBreak}. The holder's next save or unlock
     * through an instance that shows the lock is refused, as after any change, naming who broke it,
     * when and why. Refused as {@link #unlock} is when the object no longer carries that lock.
     */
    void breakLock(String reason);

    /** Whether the object, as last read or saved, holds a lock that has not expired by the engine's clock. */
    boolean isLocked();

    /** The user holding the lock (the real holder), or null. */
    String getLockHolder();

    /** The informational owner text given to {@link #lock}, or null. */
    String getLockOwner();

    /** A random id made by the engine for each new lock, or null. */
    java.util.UUID getLockToken();

    /** The lock timeout in seconds, or null. */
    Integer getLockTimeout();

    /** When the lock expires: DateLastModified + LockTimeout; null if there is no lock. */
    Instant getLockExpiry();

    /** The most characters of a lock's owner text (FileNet's LockOwner). */
    int MAX_LOCK_OWNER_LENGTH = 64;

    /** True for an instance from {@code create…} that has not been saved yet. */
    boolean isNew();

    /** True once a save has deleted the object. */
    boolean isDeleted();
}
