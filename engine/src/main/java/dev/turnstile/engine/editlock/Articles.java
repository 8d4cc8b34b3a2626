package dev.turnstile.engine.editlock;

import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.editlock.Article;
import dev.turnstile.api.editlock.EditResource;
import dev.turnstile.api.editlock.SaveResult;
import dev.turnstile.engine.objects.ObjectTransaction;
import org.hibernate.StatelessSession;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The articles edited under edit locks: made, read, and saved by the holder of a lock on the
 * article or one of its paragraphs, the lock checked and renewed in the save's transaction.
 */
final class Articles {
    private final EditLockService locks;

    Articles(EditLockService locks) {
        this.locks = locks;
    }

    Article create(String user, String type, String articleId, String html) {
        locks.checkUser(user);
        EditResource a = EditResource.article(type, articleId);
        try {
            get(a);
            throw EngineRuntimeException.badArgument("article", a.resourceId(), "it exists already");
        } catch (EngineRuntimeException e) {
            if (e.getExceptionCode() != ExceptionCode.E_OBJECT_NOT_FOUND) {
                throw e;
            }
        }
        CustomObject o = store(user).createCustomObject(EditLockService.ARTICLE_CLASS, EditLockService.idOf(a));
        o.getProperties().putValue("ArticleType", type);
        o.getProperties().putValue("ArticleKey", articleId);
        o.getProperties().putValue("Html", locks.paragraphs(type).canonical(html == null ? "" : html, Set.of()));
        o.save(RefreshMode.REFRESH);
        locks.audit.recordApart(user, "create", List.of(a.resourceId()), "ok", null);
        return toArticle(a, o);
    }

    /** The article; {@code E_OBJECT_NOT_FOUND} naming it as its editors do (not the engine object that holds it). */
    Article get(EditResource article) {
        EditResource a = article.article();
        try {
            return toArticle(a, store("turnstile").fetchCustomObject(EditLockService.ARTICLE_CLASS, EditLockService.idOf(a),
                    PropertyFilter.ALL));
        } catch (EngineRuntimeException e) {
            if (e.getExceptionCode() == ExceptionCode.E_OBJECT_NOT_FOUND) {
                throw EngineRuntimeException.of(ExceptionCode.E_OBJECT_NOT_FOUND, "There is no article " + a.resourceId());
            }
            throw e;
        }
    }

    private Article toArticle(EditResource a, CustomObject o) {
        // Sanitised on the way out too: an article stored before sanitising reaches no page as it was.
        String html = locks.paragraphs(a.type()).canonical(o.getProperties().getStringValue("Html"));
        return new Article(a.type(), a.articleId(), html, o.getUpdateSequenceNumber(),
                locks.config(a.type()).isMinimum() ? locks.paragraphs(a.type()).of(html) : List.of());
    }

    private ObjectStore store(String user) {
        return locks.objects.engineStore(user);
    }

    /**
     * A save refused inside its transaction (rolled back): the reason, and the resource its audit row
     * is filed under.
     */
    private static final class SaveRefused extends RuntimeException {
        final String resourceId;

        SaveRefused(String resourceId, String reason) {
            super(reason, null, false, false);
            this.resourceId = resourceId;
        }
    }

    /**
     * One transaction: the article row locked, the edit lock checked valid by the database clock and
     * renewed by a USN-guarded write (so no takeover commits between the check and the write), the
     * article written, the audit row inserted. A lapse or takeover at any moment either happens
     * before (the save is refused) or after (it waits for this commit).
     */
    SaveResult save(String user, String lockId, String html, long baseUsn) {
        locks.checkUser(user);
        if (html == null) {
            throw EngineRuntimeException.badArgument("article text", null, "text, possibly empty");
        }
        try {
            return locks.objects.inTransaction(() -> user + " saving under edit lock " + lockId, user, tx -> {
                StatelessSession session = tx.session();
                EditResource resource = EditLockService.resourceOf(lockRow(session, user, lockId).resourceId);
                EditLockService.takeArticleTurn(session, resource.article());
                UUID articleId = EditLockService.idOf(resource.article());
                ObjectTransaction.LockedObject stored = tx.readLocked(EditLockService.ARTICLE_CLASS, articleId);
                Instant now = tx.now();
                EditLockRecord lock;
                try {
                    lock = locks.heldBy(session, user, lockId, now);
                } catch (EngineRuntimeException e) {
                    throw new SaveRefused(resource.resourceId(), "your edit lock is no longer valid: " + e.getMessage());
                }
                if (!EditLockService.LEASE.guarded(lock.resourceId, lock.usn).set("heart_beat_time", now).update(session)) {
                    throw new SaveRefused(lock.resourceId, "your edit lock is no longer valid: it changed while saving");
                }
                String current = html(stored);
                String next = resource.isParagraph()
                        ? paragraphText(resource, lock, current, html, baseUsn)
                        : articleText(session, user, resource, stored, html, baseUsn, now);
                long usn = stored.usn();
                if (!next.equals(current)) {
                    tx.updateLocked(EditLockService.ARTICLE_CLASS, articleId, values -> values.put("Html", next));
                    usn++;
                }
                locks.audit.record(session, now, user, "save", List.of(lock.resourceId), "saved", "usn " + usn);
                return SaveResult.saved(usn);
            });
        } catch (SaveRefused refused) {
            locks.audit.recordApart(user, "save", List.of(refused.resourceId), "refused", refused.getMessage());
            return SaveResult.refused(refused.getMessage(), html);
        } catch (EngineRuntimeException e) {
            locks.audit.refusedOnLock(user, "save", lockId, e.getMessage());
            return SaveResult.refused(e.getMessage(), html);
        }
    }

    /** The row of a lock id (whoever holds it), or the refusal: an unknown id was taken over or never issued. */
    private EditLockRecord lockRow(StatelessSession session, String user, String lockId) {
        try {
            return locks.heldBy(session, user, lockId, null);
        } catch (EngineRuntimeException e) {
            throw new SaveRefused(lockId, "your edit lock is no longer valid: " + e.getMessage());
        }
    }

    /** A paragraph save: the paragraph's new content merged into the stored article. */
    private String paragraphText(EditResource paragraph, EditLockRecord lock, String current, String content, long baseUsn) {
        if (lock.articleUsn != null && baseUsn < lock.articleUsn) {
            throw new SaveRefused(lock.resourceId, "you loaded the article at USN " + baseUsn + ", before your lock on"
                    + " paragraph " + paragraph.paragraphId() + " was granted at USN " + lock.articleUsn
                    + ": load it again and edit from there");
        }
        try {
            String next = locks.paragraphs(paragraph.type()).replace(current, paragraph.paragraphId(), content);
            if (next == null) {
                throw new SaveRefused(lock.resourceId, "paragraph " + paragraph.paragraphId() + " is no longer in the article");
            }
            return next;
        } catch (Paragraphs.Split split) {
            throw new SaveRefused(lock.resourceId, split.getMessage());
        }
    }

    /**
     * An article save: on the USN the editor loaded, and leaving every paragraph another user holds
     * as it is, where it is (the paper greys them in the article editor; the server enforces it).
     */
    private String articleText(StatelessSession session, String user, EditResource article, ObjectTransaction.LockedObject stored,
                               String html, long baseUsn, Instant now) {
        if (stored.usn() != baseUsn) {
            throw new SaveRefused(article.resourceId(), "the article was changed since you loaded it (your USN " + baseUsn
                    + ", now " + stored.usn() + ")");
        }
        Paragraphs rules = locks.paragraphs(article.type());
        Map<String, String> before = rules.byId(rules.canonical(html(stored)));
        String next = rules.canonical(html, before.keySet());
        Map<String, String> after = rules.byId(next);
        List<String> keptBefore = before.keySet().stream().filter(after::containsKey).toList();
        List<String> keptAfter = after.keySet().stream().filter(before::containsKey).toList();
        for (EditLockRecord held : EditLockService.locksOf(session, article)) {
            String pid = EditLockService.resourceOf(held.resourceId).paragraphId();
            if (pid == null || !locks.valid(held, now) || held.userId.equals(user)) {
                continue;
            }
            String change = !before.containsKey(pid) ? null
                    : !after.containsKey(pid) ? "remove"
                    : !after.get(pid).equals(before.get(pid)) ? "change"
                    : keptBefore.indexOf(pid) != keptAfter.indexOf(pid) ? "move" : null;
            if (change != null) {
                throw new SaveRefused(article.resourceId(), "the save would " + change + " paragraph " + pid + ", which "
                        + held.userId + " is editing since " + held.startTime + "; leave it as it is");
            }
        }
        return next;
    }

    static String html(ObjectTransaction.LockedObject article) {
        return (String) article.values().get("Html");
    }
}
