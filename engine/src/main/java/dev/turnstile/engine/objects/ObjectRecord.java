package dev.turnstile.engine.objects;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Table;

import java.time.Instant;
import java.util.UUID;

/**
 * One row per object. Custom property values live in one JSON text column, so a save is one
 * UPDATE whatever the class, and classes can gain properties without DDL.
 */
@Entity
// No index on lock_holder (lockedObjects scans): with one, the H2 duplicate hunt and the article's
// Listing 3 across two processes saw a number issued twice again (1 run in 20, and once in CI),
// none without it (0 in 12). Every save writes lock_holder, so an index there is written by every
// save; H2's concurrent-update anomalies (h2database #3894, #4208) are of that kind.
@Table(name = "ts_object", indexes = @Index(name = "ts_object_class", columnList = "class_name"))
public class ObjectRecord {
    /** Most characters the JSON of one object's custom values may take. */
    static final int MAX_VALUES_LENGTH = 1_000_000;

    @Id
    @Column(name = "id", nullable = false)
    UUID id;

    @Column(name = "class_name", nullable = false, length = 64)
    String className;

    @Column(name = "usn", nullable = false)
    long usn;

    @Column(name = "creator", nullable = false, length = 128)
    String creator;

    @Column(name = "date_created", nullable = false)
    Instant dateCreated;

    @Column(name = "last_modifier", nullable = false, length = 128)
    String lastModifier;

    @Column(name = "date_last_modified", nullable = false)
    Instant dateLastModified;

    /** A long varchar, not a LOB: H2 stores CLOBs apart from the row and updates them ten times slower. */
    @Column(name = "prop_values", nullable = false, length = MAX_VALUES_LENGTH)
    String propValues;

    /** The user holding the cooperative lock; null when unlocked. The lock columns are one LockState. */
    @Column(name = "lock_holder", length = 128)
    String lockHolder;

    @Column(name = "lock_owner", length = 64)
    String lockOwner;

    @Column(name = "lock_token")
    UUID lockToken;

    @Column(name = "lock_timeout")
    Integer lockTimeout;

    protected ObjectRecord() {
    }
}
