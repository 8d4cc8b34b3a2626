package dev.turnstile.engine.changes;

import dev.turnstile.engine.objects.ObjectTransaction;
import dev.turnstile.engine.objects.ObjectWrite;
import dev.turnstile.engine.objects.ObjectWriteListener;

/** Appends one change record per object row written, in the saving transaction. */
final class ChangeLog implements ObjectWriteListener {
    @Override
    public void written(ObjectTransaction tx, ObjectWrite write) {
        ChangeRecord r = new ChangeRecord();
        r.objectId = write.id();
        r.className = write.className();
        r.user = write.user();
        r.changedAt = write.time();
        r.kind = write.kind().name();
        r.usnBefore = write.usnBefore();
        r.usnAfter = write.usnAfter();
        r.properties = ChangeCodec.encodeDifferences(write.before(), write.after());
        tx.session().insert(r);
    }
}
