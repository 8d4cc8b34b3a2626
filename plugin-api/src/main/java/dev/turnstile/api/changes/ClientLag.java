package dev.turnstile.api.changes;

import java.time.Duration;
import java.time.Instant;

/**
 * How far behind a client is: changes recorded after its position that its filter's classes and
 * kinds let through (its property filter is applied at delivery), and the age of the oldest of them.
 *
 * @param oldestPending null when nothing is pending
 * @param heldBy        the dispatcher serving it now, or null
 *
 * @param client the client's name
 * @param position the last change position delivered to it
 * @param pending how many recorded changes it has not received
 * @param touchedAt when a dispatcher last served it
 */
public record ClientLag(String client, long position, long pending, Duration oldestPending, Instant touchedAt,
                        String heldBy) {
}
