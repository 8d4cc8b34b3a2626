package dev.turnstile.api.editlock;

import dev.turnstile.api.LockPage;
import dev.turnstile.api.LockQuery;
import dev.turnstile.api.Session;

import java.util.List;

/**
 * Web edit locks with heartbeat and timeout, after the edit-lock paper, as one session's user: one
 * lock record per resource (article or paragraph), taken and renewed by USN-checked writes so two
 * racing requests never both win. A lock is valid while its state is 1, its last heartbeat is within
 * {@code heartbeat} and its start within {@code timeout}; requesting a resource whose record is
 * invalid takes it over. With paragraph granularity ({@code isMinimum}) a paragraph cannot be
 * taken while its article is locked by another, an article can be taken while paragraphs are
 * locked (they are reported in {@link #status}), and several paragraphs are taken all or none.
 * Every operation is written to the audit log.
 *
 * <p>Get one from {@link Session#editLocks()}: the session's user is the holder of what it locks,
 * and only that user's sessions may heartbeat, save or unlock with a lock's token.
 */
public interface EditLocks {
    /**
     * Takes one resource at once, or says who holds it; never waits. The holder asking again gets
     * its lock back, renewed (re-entry).
     */
    EditLockResult tryLock(EditResource resource);

    /** Takes several paragraphs of one article, all or none; never waits, never deadlocks. */
    EditLockResult tryLock(List<EditResource> paragraphs);

    /**
     * Renews a lock and returns it with its new expiry. Fails with {@code E_LEASE_LAPSED} if it
     * lapsed (or was taken over), and with {@code E_ACCESS_DENIED} if the lock is another user's.
     */
    EditLock heartbeat(String lockToken);

    /** Gives a lock up (state 0); same failures as {@link #heartbeat}. */
    void unlock(String lockToken);

    /**
     * Ends another user's lock at once — an abandoned one — as a user with the lock-breaking role
     * ({@code locks.breakerRole}, {@code E_ACCESS_DENIED} without it), saying why (1 to 200
     * characters). Recorded in the audit trail as {@code break} with the reason, and as a
     * {@link dev.turnstile.api.LockBreak}; the resource is free at once, and the holder's next
     * heartbeat, save or unlock fails with {@code E_LEASE_LAPSED} naming who broke it, when and why
     * ({@link dev.turnstile.api.LockBreak#message()}), also once another user has taken the resource.
     * A lock no longer valid: {@code E_LEASE_LAPSED}.
     */
    void breakLock(String lockToken, String reason);

    /** Who edits {@code article}: its own valid lock and the valid locks on its paragraphs. */
    EditStatus status(EditResource article);

    /**
     * The valid edit locks {@code query} asks for — by holder, by resource text ({@code wiki:},
     * an article, a paragraph id), by lock id — a page of them and how many there are: who edits what.
     */
    LockPage<EditLock> heldLocks(LockQuery query);

    /**
     * The audit trail of one resource ({@code type:article}, with its paragraphs' entries;
     * {@code type:article#paragraph}; or a lock token a refusal named no resource for), newest
     * first, at most {@code max} entries; each entry names its resource.
     */
    List<EditAuditEntry> audit(String resourceId, int max);

    /** Creates an article of {@code type} with this HTML, as the session's user; paragraphs get their ids. */
    Article createArticle(String type, String articleId, String html);

    /** The article, with its paragraphs; {@code E_OBJECT_NOT_FOUND} if there is none. */
    Article article(EditResource article);

    /**
     * Saves under a valid lock the session's user holds: for an article lock the whole HTML, checked
     * against the USN the editor loaded ({@code baseUsn}); for a paragraph lock that paragraph's
     * inner HTML, merged into the current article. Refusals hand the text back.
     */
    SaveResult save(String lockToken, String html, long baseUsn);
}
