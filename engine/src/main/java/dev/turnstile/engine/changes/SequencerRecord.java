package dev.turnstile.engine.changes;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** The one row that hands out feed positions: the last position given. */
@Entity
@Table(name = "ts_change_sequencer")
public class SequencerRecord {
    static final int ID = 1;

    @Id
    @Column(name = "id")
    int id;

    @Column(name = "last_position", nullable = false)
    long lastPosition;

    @Column(name = "usn", nullable = false)
    long usn;

    protected SequencerRecord() {
    }
}
