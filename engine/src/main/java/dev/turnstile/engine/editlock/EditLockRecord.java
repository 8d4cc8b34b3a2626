package dev.turnstile.engine.editlock;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Table;

import java.time.Instant;

/**
 * The paper's lock record: {@code lockId, userId, resourceId (unique), startTime, state,
 * heartBeatTime}, plus a USN. One row per resource, ever: a takeover updates it (new lockId, user
 * and times) with a USN check, so two requests for one resource never both win.
 */
@Entity
@Table(name = "ts_edit_lock", indexes = {
        @Index(name = "ts_edit_lock_id", columnList = "lock_id", unique = true),
        @Index(name = "ts_edit_lock_user", columnList = "user_id")})
public class EditLockRecord {
    @Id
    @Column(name = "resource_id", nullable = false, length = 200)
    String resourceId;

    @Column(name = "lock_id", nullable = false, length = 36)
    String lockId;

    @Column(name = "user_id", nullable = false, length = 128)
    String userId;

    @Column(name = "start_time", nullable = false)
    Instant startTime;

    /** 1: held; 0: released; 2: broken ({@link EditLockBreaks}). */
    @Column(name = "state", nullable = false)
    int state;

    @Column(name = "heart_beat_time", nullable = false)
    Instant heartBeatTime;

    @Column(name = "usn", nullable = false)
    long usn;

    /**
     * The article's USN when this lock was granted: a paragraph save must build on a load at least
     * that recent, since only then nobody else can have changed the paragraph under the editor.
     * Null on rows written before it was recorded.
     */
    @Column(name = "article_usn")
    Long articleUsn;

    protected EditLockRecord() {
    }
}
