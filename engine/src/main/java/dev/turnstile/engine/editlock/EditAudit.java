package dev.turnstile.engine.editlock;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.editlock.EditAuditEntry;
import dev.turnstile.engine.db.Database;
import dev.turnstile.engine.db.Sweep;
import org.hibernate.StatelessSession;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The edit locks' audit trail: a row per resource an operation named, with its outcome, written in
 * the operation's transaction when it commits and in one of its own when it was refused (and
 * rolled back); rows older than {@code editLocks.auditRetention} are swept as operations go.
 */
final class EditAudit {
    /** One audited operation in 64 also deletes up to 500 audit rows older than the retention. */
    private static final Sweep OLD_ROWS = new Sweep("ts_edit_audit", "audit_id", "at_time < :cutoff", 64, 500);

    private final Database database;
    private final Duration retention;

    EditAudit(Database database, Duration retention) {
        this.database = database;
        this.retention = retention;
    }

    /** The operation's rows, in its transaction: they commit with what they record. */
    void record(StatelessSession session, Instant now, String user, String operation, List<String> resources, String outcome,
                String detail) {
        for (String resource : resources) {
            session.insert(new EditAuditRecord(now, user, operation, resource, outcome, detail));
        }
        OLD_ROWS.nowAndThen(session, Map.of("cutoff", now.minus(retention)));
    }

    /** The rows in a transaction of their own: for refusals, whose transaction rolled back, and article writes. */
    void recordApart(String user, String operation, List<String> resources, String outcome, String detail) {
        Instant now = database.now();
        database.inTransaction(() -> "auditing " + operation, session -> {
            record(session, now, user, operation, resources, outcome, detail);
            return null;
        });
    }

    /** A refusal of {@code operation} on a lock id, recorded under the resource that lock is (or was last) on. */
    void refusedOnLock(String user, String operation, String lockId, String detail) {
        recordApart(user, operation, List.of(resourceOfLock(lockId)), "refused", detail);
    }

    /** The resource a lock id is (or was last) on; the id itself if it names none. */
    private String resourceOfLock(String lockId) {
        if (lockId == null || lockId.length() > 36) {
            return lockId;
        }
        List<String> ids = database.inTransaction(() -> "finding the resource of edit lock " + lockId, session ->
                session.createSelectionQuery("select l.resourceId from EditLockRecord l where l.lockId = :id", String.class)
                        .setParameter("id", lockId).getResultList());
        return ids.isEmpty() ? lockId : ids.get(0);
    }

    /** Deletes up to 500 rows past the retention at once (for tests: the sweep runs by chance). */
    int sweep() {
        Instant now = database.now();
        return database.inTransaction(() -> "deleting old edit-lock audit rows",
                session -> OLD_ROWS.run(session, Map.of("cutoff", now.minus(retention))));
    }

    /** The latest {@code max} rows of a resource (an article's with its paragraphs'), or of a lock id, newest first. */
    List<EditAuditEntry> entries(String resourceId, int max) {
        if (resourceId == null || resourceId.isBlank() || resourceId.length() > 2000) {
            throw EngineRuntimeException.badArgument("audited resource", resourceId, "a resource id such as wiki:article or a lock id");
        }
        if (max < 1 || max > 10_000) {
            throw EngineRuntimeException.badArgument("audit max", max, "1 to 10000");
        }
        // An article (type:article) is audited with its paragraphs (type:article#paragraph), as its editors see it.
        boolean article = resourceId.contains(":") && !resourceId.contains("#");
        // '!' escapes LIKE's wildcards: a backslash is itself an escape in MariaDB's string literals.
        String paragraphs = resourceId.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "#%";
        return database.inTransaction(() -> "reading the edit audit of " + resourceId, session -> {
            var query = session.createSelectionQuery("from EditAuditRecord a where a.resourceId = :r"
                    + (article ? " or a.resourceId like :paragraphs escape '!'" : "") + " order by a.id desc", EditAuditRecord.class)
                    .setParameter("r", resourceId);
            if (article) {
                query.setParameter("paragraphs", paragraphs);
            }
            return query.setMaxResults(max).getResultList().stream()
                    .map(a -> new EditAuditEntry(a.at, a.userId, a.operation, a.resourceId, a.outcome, a.detail)).toList();
        });
    }
}
