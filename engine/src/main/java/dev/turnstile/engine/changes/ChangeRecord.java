package dev.turnstile.engine.changes;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Table;

import java.time.Instant;
import java.util.UUID;

/**
 * One recorded change, inserted in the saving transaction. Its id comes from the database at
 * insert, so ids of concurrent saves may commit out of order; the feed's order is the position,
 * which {@link Sequencer} gives each change only once it is committed.
 */
@Entity
@Table(name = "ts_change", indexes = {
        @Index(name = "ts_change_position", columnList = "feed_position", unique = true),
        @Index(name = "ts_change_time", columnList = "changed_at")})
public class ChangeRecord {
    static final int MAX_PROPERTIES_LENGTH = 2_100_000;

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    @Column(name = "change_id")
    Long changeId;

    /** Null until sequenced. */
    @Column(name = "feed_position")
    Long position;

    @Column(name = "sequenced_at")
    Instant sequencedAt;

    @Column(name = "object_id", nullable = false)
    UUID objectId;

    @Column(name = "class_name", nullable = false, length = 64)
    String className;

    @Column(name = "user_name", nullable = false, length = 128)
    String user;

    @Column(name = "changed_at", nullable = false)
    Instant changedAt;

    @Column(name = "change_kind", nullable = false, length = 8)
    String kind;

    @Column(name = "usn_before")
    Long usnBefore;

    @Column(name = "usn_after")
    Long usnAfter;

    /** {"Prop": {"t": type, "o": old, "n": new}, ...} — see {@link ChangeCodec}. */
    @Column(name = "prop_changes", nullable = false, length = MAX_PROPERTIES_LENGTH)
    String properties;

    protected ChangeRecord() {
    }
}
