package dev.turnstile.samples.server;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The web page's login sessions, apart from API tokens: a random id in the cookie, a CSRF token
 * the page sends back on every change, and an end — after {@code idle} without a request, after
 * {@code absolute} in any case, or at logout. Kept in this server process's memory: a restart
 * logs everyone out, and a second server process has sessions of its own.
 */
final class Sessions {
    static final Duration IDLE = Duration.ofMinutes(30);
    static final Duration ABSOLUTE = Duration.ofHours(12);
    private static final SecureRandom RANDOM = new SecureRandom();

    record Session(String id, ServerUsers.User user, String csrf, Instant created, Instant lastSeen) {
    }

    private final Clock clock;
    private final Duration idle;
    private final Duration absolute;
    private final Map<String, Session> byId = new ConcurrentHashMap<>();

    Sessions(Clock clock, Duration idle, Duration absolute) {
        this.clock = clock;
        this.idle = idle;
        this.absolute = absolute;
    }

    Session open(ServerUsers.User user) {
        Instant now = clock.instant();
        Session s = new Session(random(), user, random(), now, now);
        byId.put(s.id(), s);
        byId.values().removeIf(old -> expired(old, now)); // logins are rare: the sweep costs nothing that matters
        return s;
    }

    /** The live session of this id, its idle clock restarted; empty if there is none or it ended. */
    Optional<Session> find(String id) {
        if (id == null) {
            return Optional.empty();
        }
        Instant now = clock.instant();
        Session s = byId.computeIfPresent(id, (k, old) -> expired(old, now) ? null
                : new Session(old.id(), old.user(), old.csrf(), old.created(), now));
        return Optional.ofNullable(s);
    }

    void close(String id) {
        if (id != null) {
            byId.remove(id);
        }
    }

    private boolean expired(Session s, Instant now) {
        return !now.isBefore(s.lastSeen().plus(idle)) || !now.isBefore(s.created().plus(absolute));
    }

    private static String random() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }
}
