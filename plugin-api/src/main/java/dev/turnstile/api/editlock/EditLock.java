package dev.turnstile.api.editlock;

import java.time.Instant;

/**
 * A granted edit lock, with the paper's fields under the names every lock of the API uses.
 * {@link #lockToken()} is unguessable, and only {@link #holder()}'s sessions may heartbeat, save or
 * unlock with it.
 *
 * @param lockToken   the lock's token (the paper's lockId)
 * @param holder      the user holding it (the paper's userId): the session's user that took it
 * @param resource    the article or paragraph locked
 * @param lockedAt    when it was taken (the paper's startTime); the timeout counts from here
 * @param heartbeatAt the last heartbeat (the paper's heartBeatTime)
 * @param expiresAt   when it lapses unless a heartbeat comes first: the earlier of
 *                    heartbeatAt + heartbeat and lockedAt + timeout
 */
public record EditLock(String lockToken, String holder, EditResource resource, Instant lockedAt, Instant heartbeatAt,
                       Instant expiresAt) {
}
