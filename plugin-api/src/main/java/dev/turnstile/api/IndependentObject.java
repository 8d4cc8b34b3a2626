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
    UUID getId();

    String getClassName();

    Properties getProperties();

    /** Null for fetchless instances, or after {@link #setUpdateSequenceNumber(Integer) set to null}. */
    Integer getUpdateSequenceNumber();

    /** Null turns the next save and fetch into unprotected ones. */
    void setUpdateSequenceNumber(Integer usn);

    String getCreator();

    Instant getDateCreated();

    String getLastModifier();

    Instant getDateLastModified();

    /**
     * Reads the filtered properties from the database into this instance. With a non-null local USN
     * that no longer matches the stored one it fails with {@link ExceptionCode#E_OBJECT_MODIFIED}.
     * Pending changes are kept.
     */
    void fetchProperties(PropertyFilter filter);

    /** Replaces the instance's state with the stored one, whatever its USN; drops pending changes. */
    void refresh(PropertyFilter filter);

    default void refresh() {
        refresh(PropertyFilter.ALL);
    }

    /** Marks the object for deletion at the next save (which is USN-checked like any other). */
    void delete();

    /** Applies the pending changes in one transaction. */
    void save(RefreshMode refreshMode);

    boolean isPendingSave();

    /** True for an instance from {@code create…} that has not been saved yet. */
    boolean isNew();

    /** True once a save has deleted the object. */
    boolean isDeleted();
}
