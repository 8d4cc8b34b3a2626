package dev.turnstile.engine.changes;

import dev.turnstile.engine.db.Database;
import dev.turnstile.engine.db.Turn;

import java.sql.PreparedStatement;
import java.time.Instant;
import java.util.List;

/**
 * Gives committed changes their feed positions, in change-id order, under the sequencer row's
 * lock. A change gets a position only once its save has committed, so no change can ever appear
 * behind a position a client has already passed — which ordering by the insert-time id alone
 * would allow, since saves commit out of id order. Per object the order is kept: saves of one
 * object are serialized by its row, so the later change is inserted and committed after.
 */
final class Sequencer {
    private static final int BATCH = 1000;
    private static final Turn TURN = new Turn("ts_change_sequencer", "id");

    private final Database database;

    Sequencer(Database database) {
        this.database = database;
    }

    /** Sequences what is committed and waiting; returns the last position given (the feed's head). */
    long sequence() {
        Instant now = database.now();
        Long idleHead = database.inTransaction(() -> "looking for changes to sequence", session -> {
            // Without a change waiting, read the head without taking the sequencer's lock.
            boolean waiting = !session.createNativeQuery("SELECT change_id FROM ts_change WHERE feed_position IS NULL", Long.class)
                    .setMaxResults(1).getResultList().isEmpty();
            return waiting ? null : session.createNativeQuery("SELECT last_position FROM ts_change_sequencer WHERE id = :id",
                    Long.class).setParameter("id", SequencerRecord.ID).getSingleResult();
        });
        if (idleHead != null) {
            return idleHead;
        }
        return database.inTransaction(() -> "sequencing changes", session -> {
            // The row's turn first: one sequencer at a time, so positions follow one order.
            TURN.take(session, SequencerRecord.ID);
            long last = session.createNativeQuery("SELECT last_position FROM ts_change_sequencer WHERE id = :id", Long.class)
                    .setParameter("id", SequencerRecord.ID).getSingleResult();
            List<Long> waiting = session.createNativeQuery("SELECT change_id FROM ts_change WHERE feed_position IS NULL"
                    + " ORDER BY change_id", Long.class).setMaxResults(BATCH).getResultList();
            if (waiting.isEmpty()) {
                return last;
            }
            long first = last + 1;
            session.doWork(connection -> {
                try (PreparedStatement update = connection.prepareStatement(
                        "UPDATE ts_change SET feed_position = ? WHERE change_id = ?")) {
                    long position = first;
                    for (Long id : waiting) {
                        update.setLong(1, position++);
                        update.setLong(2, id);
                        update.addBatch();
                    }
                    update.executeBatch();
                }
            });
            long head = last + waiting.size();
            session.createNativeMutationQuery("UPDATE ts_change SET sequenced_at = :now WHERE feed_position BETWEEN :first AND :head")
                    .setParameter("now", now).setParameter("first", first).setParameter("head", head).executeUpdate();
            session.createNativeMutationQuery("UPDATE ts_change_sequencer SET last_position = :head WHERE id = :id")
                    .setParameter("head", head).setParameter("id", SequencerRecord.ID).executeUpdate();
            return head;
        });
    }
}
