package dev.turnstile.engine.editlock;

import dev.turnstile.api.LockPage;
import dev.turnstile.api.LockQuery;
import dev.turnstile.api.editlock.Article;
import dev.turnstile.api.editlock.EditAuditEntry;
import dev.turnstile.api.editlock.EditLock;
import dev.turnstile.api.editlock.EditLockResult;
import dev.turnstile.api.editlock.EditLocks;
import dev.turnstile.api.editlock.EditResource;
import dev.turnstile.api.editlock.EditStatus;
import dev.turnstile.api.editlock.SaveResult;

import java.util.List;
import java.util.Set;

/** The edit locks as one session's user sees them: every call acts as that user on the engine's one {@link EditLockService}. */
public record DefaultEditLocks(EditLockService service, String user, Set<String> roles) implements EditLocks {

    @Override
    public EditLockResult tryLock(EditResource resource) {
        return service.tryLock(user, resource);
    }

    @Override
    public EditLockResult tryLock(List<EditResource> paragraphs) {
        return service.tryLock(user, paragraphs);
    }

    @Override
    public EditLock heartbeat(String lockToken) {
        return service.heartbeat(user, lockToken);
    }

    @Override
    public void unlock(String lockToken) {
        service.unlock(user, lockToken);
    }

    @Override
    public void breakLock(String lockToken, String reason) {
        service.breaks.breakLock(user, roles, lockToken, reason);
    }

    @Override
    public EditStatus status(EditResource article) {
        return service.status(article);
    }

    @Override
    public LockPage<EditLock> heldLocks(LockQuery query) {
        return service.heldLocks(query);
    }

    @Override
    public List<EditAuditEntry> audit(String resourceId, int max) {
        return service.audit(resourceId, max);
    }

    @Override
    public Article createArticle(String type, String articleId, String html) {
        return service.articles().create(user, type, articleId, html);
    }

    @Override
    public Article article(EditResource article) {
        return service.articles().get(article);
    }

    @Override
    public SaveResult save(String lockToken, String html, long baseUsn) {
        return service.articles().save(user, lockToken, html, baseUsn);
    }
}
