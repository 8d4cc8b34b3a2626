package dev.turnstile.engine.editlock;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * A row that transactions write first in order to take turns: one per editor ({@code user:…}:
 * its acquires, so maxLocksPerUser holds under races) and one per article ({@code article:…}:
 * acquires and saves of the article). A write, not a {@code SELECT … FOR UPDATE}: on a Galera
 * cluster a read lock holds only on its own node and certification compares written rows only.
 */
@Entity
@Table(name = "ts_edit_turn")
public class EditTurnRecord {
    @Id
    @Column(name = "turn_key", nullable = false, length = 210)
    String key;

    @Column(name = "usn", nullable = false)
    long usn;

    protected EditTurnRecord() {
    }
}
