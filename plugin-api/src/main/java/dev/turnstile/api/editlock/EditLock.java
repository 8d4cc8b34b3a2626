package dev.turnstile.api.editlock;

import java.time.Instant;

/**
 * A granted edit lock, with the paper's fields. {@link #lockId()} is the token: unguessable, and
 * only {@link #userId()} may heartbeat or release with it.
 *
 * @param expiresAt when it lapses unless a heartbeat comes first: the earlier of
 *                  heartBeatTime + heartbeat and startTime + timeout
 */
public record EditLock(String lockId, String userId, EditResource resource, Instant startTime, Instant heartBeatTime,
                       Instant expiresAt) {
}
