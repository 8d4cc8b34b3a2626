package dev.turnstile.engine.changes;

import dev.turnstile.engine.db.GuardedWrite.Parameter;
import dev.turnstile.engine.db.Notifications;
import dev.turnstile.engine.objects.ObjectTransaction;
import dev.turnstile.engine.objects.ObjectWrite;
import dev.turnstile.engine.objects.ObjectWriteListener;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * Appends one change record per object row written, in the saving transaction; the same statement
 * tells idle dispatchers in other processes (on PostgreSQL) that there is something to deliver,
 * if one has said it waits ({@link DefaultChangeDispatcher}), and once the save commits the ones
 * here hear it too. A note on every change held a lock of the whole database until each saving
 * transaction's commit (a NOTIFY's), with nobody listening.
 */
final class ChangeLog implements ObjectWriteListener {
    /** The channel on which a recorded change wakes the dispatchers of every process. */
    static final String CHANNEL = "turnstile_changes";
    private static final String INSERT = "INSERT INTO ts_change (object_id, class_name, user_name, changed_at, change_kind,"
            + " usn_before, usn_after, prop_changes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";

    private final Notifications notifications;
    private final Runnable wakeDispatchers;

    ChangeLog(Notifications notifications, Runnable wakeDispatchers) {
        this.notifications = notifications;
        this.wakeDispatchers = wakeDispatchers;
    }

    @Override
    public void written(ObjectTransaction tx, ObjectWrite write) {
        // Native SQL: no generated key to read back, and the NOTIFY rides on the INSERT.
        notifications.executeAndNotify(tx.session(), INSERT, List.of(new Parameter(write.id(), UUID.class),
                new Parameter(write.className(), String.class), new Parameter(write.user(), String.class),
                new Parameter(write.time(), Instant.class), new Parameter(write.kind().name(), String.class),
                new Parameter(write.usnBefore(), Long.class), new Parameter(write.usnAfter(), Long.class),
                new Parameter(ChangeCodec.encodeDifferences(write.before(), write.after()), String.class)),
                CHANNEL, CHANNEL, "");
    }

    @Override
    public void committed() {
        wakeDispatchers.run();
    }
}
