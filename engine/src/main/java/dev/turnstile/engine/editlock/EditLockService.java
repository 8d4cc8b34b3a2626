package dev.turnstile.engine.editlock;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.LockPage;
import dev.turnstile.api.LockQuery;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.editlock.EditAuditEntry;
import dev.turnstile.api.editlock.EditLock;
import dev.turnstile.api.editlock.EditLockConfig;
import dev.turnstile.api.editlock.EditLockResult;
import dev.turnstile.api.editlock.EditLocks;
import dev.turnstile.api.editlock.EditResource;
import dev.turnstile.api.editlock.EditStatus;
import dev.turnstile.engine.breaks.LockBreaks;
import dev.turnstile.engine.db.Database;
import dev.turnstile.engine.db.LockListing;
import dev.turnstile.engine.db.Lease;
import dev.turnstile.engine.db.Sql;
import dev.turnstile.engine.db.Turn;
import dev.turnstile.engine.objects.ObjectStoreServices;
import dev.turnstile.engine.objects.ObjectTransaction;
import org.hibernate.StatelessSession;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/** Edit locks on the engine's database; see {@link EditLocks}. */
public final class EditLockService {
    public static final List<Class<?>> ENTITIES = List.of(EditLockRecord.class, EditTurnRecord.class, EditAuditRecord.class);
    static final String ARTICLE_CLASS = "EditableArticle";
    /**
     * An edit lock record: valid by the paper's four rules (state, heartbeat, timeout), decided on the
     * row read in the transaction by the database clock, and written only if nobody wrote it since.
     */
    static final Lease LEASE = new Lease("ts_edit_lock", "resource_id", "user_id", null);
    /** Turns ({@link EditTurnRecord}): one per editor for its acquires, one per article for its acquires and saves. */
    private static final Turn TURNS = new Turn("ts_edit_turn", "turn_key");
    /** A lost race means another request made progress, so going again is safe; this only bounds a pathological churn. */
    private static final int RACE_ATTEMPTS = 50;

    private final Database database;
    final ObjectStoreServices objects;
    private final EditLockValidity validity;
    private final Map<String, Paragraphs> paragraphRules = new ConcurrentHashMap<>();
    final EditAudit audit;
    private final Articles articles;
    final EditLockBreaks breaks;

    public EditLockService(Database database, ObjectStoreServices objects, LockBreaks breaks, EngineConfig config) {
        this.database = database;
        this.objects = objects;
        this.validity = new EditLockValidity(config.editLocks().types());
        this.audit = new EditAudit(database, config.editLocks().auditRetention());
        this.articles = new Articles(this);
        this.breaks = new EditLockBreaks(this, database, breaks);
        objects.protectClass(ARTICLE_CLASS, "edit lock service (a session's editLocks())", null);
        objects.engineStore("turnstile").defineClass(ARTICLE_CLASS, c -> c.string("ArticleType", 32)
                .string("ArticleKey", 64).string("Html", 1_000_000));
    }

    EditLockConfig config(String type) {
        return validity.config(type);
    }

    Paragraphs paragraphs(String type) {
        return paragraphRules.computeIfAbsent(type, t -> new Paragraphs(config(t).htmlTags()));
    }

    /** The paper's four rules ({@link EditLockValidity}). */
    boolean valid(EditLockRecord r, Instant now) {
        return validity.valid(r, now);
    }

    EditLock toLock(EditLockRecord r, EditResource resource) {
        return new EditLock(r.lockId, r.userId, resource, r.startTime, r.heartBeatTime, EditLockValidity.expiry(r, config(resource.type())));
    }

    /** A refusal inside an all-or-nothing transaction: thrown to roll it back, caught to answer. */
    private static final class Refusal extends RuntimeException {
        final EditLockResult.Refused result;

        Refusal(EditLockResult.Refused result) {
            super(result.reason(), null, false, false);
            this.result = result;
        }
    }

    /** Another request won the row between our read and our write: the whole attempt goes again. */
    private static final class LostRace extends RuntimeException {
        LostRace() {
            super("lost a race for an edit lock row", null, false, false);
        }
    }

    public EditLockResult tryLock(String user, EditResource resource) {
        return tryLock(user, List.of(resource));
    }

    public EditLockResult tryLock(String user, List<EditResource> resources) {
        checkUser(user);
        List<EditResource> sorted = checkRequest(resources);
        List<String> ids = sorted.stream().map(EditResource::resourceId).toList();
        EditResource article = sorted.get(0).article();
        for (int attempt = 1; ; attempt++) {
            try {
                return objects.inTransaction(() -> user + " locking " + ids, user, tx -> {
                    StatelessSession session = tx.session();
                    TURNS.take(session, "user:" + user);
                    // Acquires and saves of one article take turns, so a paragraph is never granted while a
                    // save removes it, nor changed while it is granted.
                    takeArticleTurn(session, article);
                    ObjectTransaction.LockedObject stored = tx.readLocked(ARTICLE_CLASS, idOf(article));
                    Instant now = tx.now();
                    checkParagraphsExist(sorted, Articles.html(stored));
                    checkLimit(session, user, sorted, now);
                    List<EditLock> granted = new ArrayList<>();
                    for (EditResource r : sorted) {
                        granted.add(acquireOne(session, user, r, now, stored.usn()));
                    }
                    audit.record(session, now, user, "acquire", ids, "granted", null);
                    return new EditLockResult.Granted(granted);
                });
            } catch (Refusal refused) {
                audit.recordApart(user, "acquire", ids, "refused", refused.result.reason());
                return refused.result;
            } catch (LostRace | EngineRuntimeException e) {
                if (attempt == RACE_ATTEMPTS || !(e instanceof LostRace || Sql.isRace(e))) {
                    audit.recordApart(user, "acquire", ids, "failed", e.getMessage());
                    throw e;
                }
            }
        }
    }

    private List<EditResource> checkRequest(List<EditResource> resources) {
        if (resources == null || resources.isEmpty()) {
            throw EngineRuntimeException.badArgument("edit lock request", resources, "name at least one resource");
        }
        EditResource first = resources.get(0);
        for (EditResource r : resources) {
            if (r.isParagraph() && !config(r.type()).isMinimum()) {
                throw EngineRuntimeException.badArgument("edit lock request", r.resourceId(), "paragraph locks are off"
                        + " for type " + r.type() + " (isMinimum is false)");
            }
            if (resources.size() > 1 && (!r.isParagraph() || !r.article().equals(first.article()))) {
                throw EngineRuntimeException.badArgument("edit lock request", resources, "several resources must be"
                        + " paragraphs of one article");
            }
        }
        // One order for every request: two multi-paragraph requests never wait on each other in a cycle.
        return resources.stream().distinct().sorted(Comparator.comparing(EditResource::resourceId)).toList();
    }

    /** Paragraph ids are the article's own: a lock on one it does not have could never be saved. */
    private void checkParagraphsExist(List<EditResource> requested, String html) {
        Set<String> present = null;
        for (EditResource r : requested) {
            if (r.isParagraph()) {
                present = present == null ? paragraphs(r.type()).byId(html).keySet() : present;
                if (!present.contains(r.paragraphId())) {
                    throw EngineRuntimeException.badArgument("edit lock request", r.resourceId(), "the article "
                            + r.article() + " has no paragraph " + r.paragraphId());
                }
            }
        }
    }

    /**
     * maxLocksPerUser: the user's valid locks of this type elsewhere, plus this request, must fit. A
     * refusal names the user as holder since its oldest such lock (or now, if the request alone is too many).
     */
    private void checkLimit(StatelessSession session, String user, List<EditResource> requested, Instant now) {
        String type = requested.get(0).type();
        EditLockConfig config = config(type);
        Map<String, Object> times = new java.util.HashMap<>();
        var query = session.createSelectionQuery("select count(l), min(l.startTime) from EditLockRecord l"
                        + " where l.userId = :u and l.state = 1 and l.resourceId like :type and "
                        + EditLockValidity.heldAt("l.heartBeatTime", "l.startTime", config, now, "", times)
                        + " and l.resourceId not in (:requested)", Object[].class)
                .setParameter("u", user).setParameter("type", type + ":%")
                .setParameterList("requested", requested.stream().map(EditResource::resourceId).toList());
        times.forEach(query::setParameter);
        List<Object[]> held = query.getResultList();
        long elsewhere = (Long) held.get(0)[0];
        if (elsewhere + requested.size() > config.maxLocksPerUser()) {
            Instant since = elsewhere == 0 ? now : (Instant) held.get(0)[1];
            throw new Refusal(new EditLockResult.Refused(requested.get(0), user, since, user + " already holds the most edit"
                    + " locks allowed (" + config.maxLocksPerUser() + " for type " + type + ")"));
        }
    }

    private EditLock acquireOne(StatelessSession session, String user, EditResource resource, Instant now, long articleUsn) {
        if (resource.isParagraph()) {
            EditLockRecord article = session.get(EditLockRecord.class, resource.article().resourceId());
            if (article != null && valid(article, now) && !article.userId.equals(user)) {
                throw new Refusal(new EditLockResult.Refused(resource, article.userId, article.startTime, "the article "
                        + resource.article() + " is being edited by " + article.userId + " since " + article.startTime));
            }
        }
        EditLockRecord row = session.get(EditLockRecord.class, resource.resourceId());
        if (row != null && valid(row, now)) {
            if (!row.userId.equals(user)) {
                throw new Refusal(new EditLockResult.Refused(resource, row.userId, row.startTime, resource + " is being edited by "
                        + row.userId + " since " + row.startTime));
            }
            // Re-entry: the holder asking again keeps its lock, renewed.
            if (!LEASE.guarded(row.resourceId, row.usn).set("heart_beat_time", now).update(session)) {
                throw new LostRace();
            }
            row.heartBeatTime = now;
            return toLock(row, resource);
        }
        String lockId = UUID.randomUUID().toString();
        if (row == null) {
            EditLockRecord r = new EditLockRecord();
            r.resourceId = resource.resourceId();
            r.lockId = lockId;
            r.userId = user;
            r.startTime = now;
            r.state = 1;
            r.heartBeatTime = now;
            r.articleUsn = articleUsn;
            session.insert(r); // a concurrent first insert fails the attempt, which goes again and sees the winner
            return toLock(r, resource);
        }
        // The record is invalid (released, or its holder stopped heartbeating or kept it too long): take it over.
        if (!LEASE.guarded(row.resourceId, row.usn).set("lock_id", lockId).set("user_id", user).set("start_time", now)
                .set("state", 1).set("heart_beat_time", now).set("article_usn", articleUsn).update(session)) {
            throw new LostRace();
        }
        row.lockId = lockId;
        row.userId = user;
        row.startTime = now;
        row.heartBeatTime = now;
        row.state = 1;
        return toLock(row, resource);
    }

    /** The article's turn: its acquires and saves write it first. */
    static void takeArticleTurn(StatelessSession session, EditResource article) {
        TURNS.take(session, "article:" + article.resourceId());
    }

    public EditLock heartbeat(String user, String lockId) {
        return renewOrRelease(user, lockId, false);
    }

    public void unlock(String user, String lockId) {
        renewOrRelease(user, lockId, true);
    }

    /** Renews the lock (heartBeatTime = now) or releases it (state 0), as its holder; audited with the outcome. */
    private EditLock renewOrRelease(String user, String lockId, boolean release) {
        checkUser(user);
        String operation = release ? "release" : "heartbeat";
        try {
            return database.inTransaction(() -> user + " " + operation + " " + lockId, session -> {
                Instant now = database.now();
                EditLockRecord row = heldBy(session, user, lockId, now);
                boolean written = LEASE.guarded(row.resourceId, row.usn).set("state", release ? 0 : 1)
                        .set("heart_beat_time", release ? row.heartBeatTime : now).update(session);
                if (!written) {
                    throw EngineRuntimeException.leaseLapsed("Edit lock", lockId, user, null); // another writer moved the row on
                }
                row.heartBeatTime = release ? row.heartBeatTime : now;
                audit.record(session, now, user, operation, List.of(row.resourceId), "ok", null);
                return toLock(row, resourceOf(row.resourceId));
            });
        } catch (EngineRuntimeException e) {
            audit.refusedOnLock(user, operation, lockId, e.getMessage());
            throw e;
        }
    }

    /**
     * The lock's row if {@code user} holds it validly at {@code now} (or at all, if null); otherwise
     * the failure the caller learns.
     */
    EditLockRecord heldBy(StatelessSession session, String user, String lockId, Instant now) {
        if (lockId == null || lockId.length() > 36) {
            throw EngineRuntimeException.badArgument("edit lock id", lockId, "a lock id as acquire returned it");
        }
        EditLockRecord row = row(session, lockId);
        if (row == null) {
            // Broken and taken over (the record has a new lock id), taken over after a lapse, or never issued.
            throw breaks.notHeld(session, user, lockId, null);
        }
        if (!row.userId.equals(user)) {
            throw EngineRuntimeException.of(ExceptionCode.E_ACCESS_DENIED, user + " may not use edit lock " + lockId
                    + ": it is not theirs");
        }
        if (now != null && !valid(row, now)) {
            throw breaks.notHeld(session, user, lockId, row.state == EditLockBreaks.BROKEN ? null
                    : toLock(row, resourceOf(row.resourceId)).expiresAt());
        }
        return row;
    }

    /** The lock's row by its id, or null: taken over (the record has a new lock id) or never issued. */
    EditLockRecord row(StatelessSession session, String lockId) {
        return session.createSelectionQuery("from EditLockRecord l where l.lockId = :id", EditLockRecord.class)
                .setParameter("id", lockId).getResultList().stream().findFirst().orElse(null);
    }

    static EditResource resourceOf(String resourceId) {
        int colon = resourceId.indexOf(':');
        int hash = resourceId.indexOf('#');
        String type = resourceId.substring(0, colon);
        return hash < 0 ? EditResource.article(type, resourceId.substring(colon + 1))
                : EditResource.paragraph(type, resourceId.substring(colon + 1, hash), resourceId.substring(hash + 1));
    }

    public EditStatus status(EditResource article) {
        EditResource a = article.article();
        return database.inTransaction(() -> "reading edit locks of " + a, session -> {
            Instant now = database.now();
            EditLock articleLock = null;
            List<EditLock> paragraphs = new ArrayList<>();
            for (EditLockRecord r : locksOf(session, a)) {
                if (!valid(r, now)) {
                    continue;
                }
                EditResource res = resourceOf(r.resourceId);
                if (res.isParagraph()) {
                    paragraphs.add(toLock(r, res));
                } else {
                    articleLock = toLock(r, res);
                }
            }
            paragraphs.sort(Comparator.comparing(l -> l.resource().resourceId()));
            return new EditStatus(a, articleLock, paragraphs);
        });
    }

    public LockPage<EditLock> heldLocks(LockQuery query) {
        return database.inTransaction(() -> "listing edit locks", session -> {
            LockPage<EditLockRecord> rows = LISTING.page(session, query, EditLockRecord.class, validity.validAt(database.now()), t -> t);
            return new LockPage<>(rows.items().stream().map(r -> toLock(r, resourceOf(r.resourceId))).toList(), rows.total(), rows.offset());
        });
    }

    /** Edit locks as a console lists them: by holder, resource, lock id and start. */
    private static final LockListing LISTING = new LockListing("ts_edit_lock", "user_id", "resource_id", null, "lock_id", "start_time");

    public List<EditAuditEntry> audit(String resourceId, int max) {
        return audit.entries(resourceId, max);
    }

    /** An article's object id, from its resource id. */
    static UUID idOf(EditResource article) {
        return UUID.nameUUIDFromBytes(("turnstile-article:" + article.resourceId()).getBytes(StandardCharsets.UTF_8));
    }

    /** The lock records of an article and its paragraphs, valid or not. */
    static List<EditLockRecord> locksOf(StatelessSession session, EditResource article) {
        return session.createSelectionQuery("from EditLockRecord l where l.resourceId = :a or l.resourceId like :p escape '"
                        + Sql.LIKE_ESCAPE + "'", EditLockRecord.class)
                .setParameter("a", article.resourceId()).setParameter("p", Sql.likeLiteral(article.resourceId()) + "#%")
                .getResultList();
    }

    Articles articles() {
        return articles;
    }

    /** Deletes old audit rows at once (for tests). */
    int sweepAudit() {
        return audit.sweep();
    }

    void checkUser(String user) {
        database.host().refuse("An edit lock operation");
        if (user == null || user.isBlank() || user.length() > 128) {
            throw EngineRuntimeException.badArgument("user", user, "1 to 128 characters");
        }
    }
}
