package dev.turnstile.engine.editlock;

import dev.turnstile.api.editlock.EditLockConfig;
import dev.turnstile.engine.db.Expiry;
import dev.turnstile.engine.db.LockListing;
import dev.turnstile.engine.db.Sql;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * The paper's four rules — state 1, the last heartbeat within the type's {@code heartbeat}, the
 * start within its {@code timeout} — for a row read ({@link #valid}) and as a condition for a
 * statement that counts or lists ({@link #heldAt}, {@link #validAt}), side by side so that the two cannot disagree:
 * {@code min(heartbeat + h, start + t) >= now} is {@code heartbeat >= now - h and start >= now - t},
 * each half judged by {@link Expiry}.
 */
final class EditLockValidity {
    private final Map<String, EditLockConfig> types;

    EditLockValidity(Map<String, EditLockConfig> types) {
        this.types = types;
    }

    EditLockConfig config(String type) {
        return types.getOrDefault(type, EditLockConfig.DEFAULTS);
    }

    boolean valid(EditLockRecord r, Instant now) {
        return r.state == 1 && Expiry.isHeld(expiry(r, config(typeOf(r.resourceId))), now);
    }

    /** When the lock lapses unless renewed: a heartbeat after its last, or the timeout after its start, whichever is first. */
    static Instant expiry(EditLockRecord r, EditLockConfig c) {
        Instant byHeartbeat = r.heartBeatTime.plus(c.heartbeat());
        Instant byTimeout = r.startTime.plus(c.timeout());
        return byHeartbeat.isBefore(byTimeout) ? byHeartbeat : byTimeout;
    }

    static String typeOf(String resourceId) {
        return resourceId.substring(0, resourceId.indexOf(':'));
    }

    /**
     * {@link #valid}'s times as a condition on the columns (or attributes) {@code heartbeat} and
     * {@code start} of a lock of a type configured {@code c}, at {@code now}; its parameters, named
     * with {@code suffix}, go into {@code parameters}. The state is the caller's.
     */
    static String heldAt(String heartbeat, String start, EditLockConfig c, Instant now, String suffix, Map<String, Object> parameters) {
        parameters.put("beatFrom" + suffix, now.minus(c.heartbeat()));
        parameters.put("startFrom" + suffix, now.minus(c.timeout()));
        return Expiry.in(heartbeat).heldAt(":beatFrom" + suffix) + " AND " + Expiry.in(start).heldAt(":startFrom" + suffix);
    }

    /** Every valid lock of {@code ts_edit_lock} at {@code now}, whatever its type: a configured type's rules, or the defaults. */
    LockListing.Held validAt(Instant now) {
        Map<String, Object> parameters = new HashMap<>();
        StringBuilder anyType = new StringBuilder();
        StringBuilder configured = new StringBuilder();
        int i = 0;
        for (Map.Entry<String, EditLockConfig> type : types.entrySet()) {
            String like = "resource_id LIKE :type" + i + " ESCAPE '" + Sql.LIKE_ESCAPE + "'";
            parameters.put("type" + i, Sql.likeLiteral(type.getKey()) + ":%");
            anyType.append("(").append(like).append(" AND ").append(heldAt("heart_beat_time", "start_time", type.getValue(), now,
                    String.valueOf(i), parameters)).append(") OR ");
            configured.append(configured.isEmpty() ? "" : " OR ").append(like);
            i++;
        }
        anyType.append("(").append(configured.isEmpty() ? "" : "NOT (" + configured + ") AND ")
                .append(heldAt("heart_beat_time", "start_time", EditLockConfig.DEFAULTS, now, "Default", parameters)).append(")");
        return new LockListing.Held("state = 1 AND (" + anyType + ")", parameters);
    }
}
