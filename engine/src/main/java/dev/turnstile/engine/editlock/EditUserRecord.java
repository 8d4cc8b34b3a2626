package dev.turnstile.engine.editlock;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** One row per editor, written first by each of its acquires: they take turns, so maxLocksPerUser holds under races. */
@Entity
@Table(name = "ts_edit_user")
public class EditUserRecord {
    @Id
    @Column(name = "user_id", nullable = false, length = 128)
    String userId;

    @Column(name = "usn", nullable = false)
    long usn;

    protected EditUserRecord() {
    }
}
