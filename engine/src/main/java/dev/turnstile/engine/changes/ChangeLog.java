package dev.turnstile.engine.changes;

import dev.turnstile.engine.db.Notifications;
import dev.turnstile.engine.objects.ObjectTransaction;
import dev.turnstile.engine.objects.ObjectWrite;
import dev.turnstile.engine.objects.ObjectWriteListener;

/**
 * Appends one change record per object row written, in the saving transaction; the same statement
 * tells idle dispatchers in other processes (on PostgreSQL) that there is something to deliver,
 * and once the save commits the ones here hear it too.
 */
final class ChangeLog implements ObjectWriteListener {
    /** The channel on which a recorded change wakes the dispatchers of every process. */
    static final String CHANNEL = "turnstile_changes";
    private static final String INSERT = "INSERT INTO ts_change (object_id, class_name, user_name, changed_at, change_kind,"
            + " usn_before, usn_after, prop_changes) VALUES (:id, :cls, :usr, :at, :kind, :before, :after, :props)";

    private final Notifications notifications;
    private final Runnable wakeDispatchers;

    ChangeLog(Notifications notifications, Runnable wakeDispatchers) {
        this.notifications = notifications;
        this.wakeDispatchers = wakeDispatchers;
    }

    @Override
    public void written(ObjectTransaction tx, ObjectWrite write) {
        // Native SQL: no generated key to read back, and the NOTIFY rides on the INSERT.
        notifications.executeAndNotify(tx.session(), INSERT, q -> q.setParameter("id", write.id())
                .setParameter("cls", write.className()).setParameter("usr", write.user())
                .setParameter("at", write.time()).setParameter("kind", write.kind().name())
                .setParameter("before", write.usnBefore(), Long.class).setParameter("after", write.usnAfter(), Long.class)
                .setParameter("props", ChangeCodec.encodeDifferences(write.before(), write.after())), CHANNEL, "");
    }

    @Override
    public void committed() {
        wakeDispatchers.run();
    }
}
