package dev.turnstile.engine.objects;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.LockPage;
import dev.turnstile.api.LockQuery;
import dev.turnstile.api.ObjectLockInfo;
import dev.turnstile.engine.breaks.LockBreaks;
import dev.turnstile.engine.db.Database;
import dev.turnstile.engine.db.Expiry;
import dev.turnstile.engine.db.LockListing;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Cooperative locks as an operator sees them: the locked objects, page by page, and what a holder is told of a break. */
final class ObjectLocks {
    /** Cooperative locks as a console lists them: by holder, class (or object id), lock token and last save. */
    private static final LockListing LISTING = new LockListing("ts_object", "lock_holder", "class_name", "id", "lock_token",
            "date_last_modified");

    private final Database database;
    private final LockBreaks breaks;

    ObjectLocks(Database database, LockBreaks breaks) {
        this.database = database;
        this.breaks = breaks;
    }

    /** The unexpired cooperative locks {@code query} asks for, by the database clock, but those of {@code unreadable} classes. */
    LockPage<ObjectLockInfo> lockedObjects(LockQuery query, Collection<String> unreadable) {
        Map<String, Object> parameters = new HashMap<>(Map.of("now", database.now()));
        String held = "lock_holder IS NOT NULL AND " + Expiry.secondsAfter("date_last_modified", "lock_timeout",
                database.productName()).heldAt(":now");
        if (!unreadable.isEmpty()) {
            held += " AND class_name NOT IN (:unreadable)";
            parameters.put("unreadable", unreadable);
        }
        LockListing.Held locked = new LockListing.Held(held, parameters);
        return database.inTransaction(() -> "listing cooperative locks", session -> {
            LockPage<ObjectRecord> rows = LISTING.page(session, query, ObjectRecord.class, locked, LockListing::uuidOrNull);
            return new LockPage<>(rows.items().stream().map(r -> new ObjectLockInfo(r.className, r.id, r.lockHolder, r.lockOwner,
                    r.lockToken, new LockState(r.lockHolder, r.lockOwner, r.lockToken, r.lockTimeout).expiry(r.dateLastModified)))
                    .toList(), rows.total(), rows.offset());
        });
    }

    /**
     * A save refused because its object moved on ({@code E_OBJECT_MODIFIED}, {@code E_OBJECT_NOT_LOCKED})
     * while its instance showed the user's own lock: if an operator broke that lock, the refusal says
     * who, when and why. Read on this refusal only.
     */
    EngineRuntimeException toldOfBreak(EngineRuntimeException e, List<DefaultIndependentObject> ordered, LockRules.Actor actor) {
        if (e.getExceptionCode() != ExceptionCode.E_OBJECT_MODIFIED && e.getExceptionCode() != ExceptionCode.E_OBJECT_NOT_LOCKED) {
            return e;
        }
        for (DefaultIndependentObject o : ordered) {
            if (o.getLockToken() != null && actor.user().equals(o.getLockHolder())) {
                var broken = breaks.find(o.getLockToken().toString());
                if (broken.isPresent()) {
                    return EngineRuntimeException.of(e.getExceptionCode(), e.getMessage() + ". " + broken.get().message(), e);
                }
            }
        }
        return e;
    }
}
