package dev.turnstile.api.changes;

import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * One change to one object, as the feed delivers it. A coalesced change stands for a run of
 * changes by one user, of one kind, to one object: it carries every change id of the run, the USN
 * before the first and after the last, and for each property the first old and the last new value.
 * Deliveries are at least once: a client deduplicates by {@link #lastChangeId()}.
 *
 * @param changeIds  the recorded changes this stands for, in order (one unless coalesced)
 * @param position   the feed position of the last of them: changes reach every client in position order
 * @param usnBefore  null for a creation
 * @param usnAfter   null for a deletion
 * @param properties the changed custom properties (for a creation every value set; for a deletion every value held)
 *
 * @param objectId the object changed
 * @param className its class
 * @param user the user whose session saved
 * @param time when the (last coalesced) save committed, by the database clock
 * @param kind what the save did
 */
public record Change(List<Long> changeIds, long position, UUID objectId, String className, String user, Instant time,
                     ChangeKind kind, Long usnBefore, Long usnAfter, Map<String, PropertyChange> properties) {
    public Change {
        changeIds = List.copyOf(changeIds);
        properties = Collections.unmodifiableMap(new TreeMap<>(properties));
    }

    /** The id of the last of the changes this one stands for. */
    public long lastChangeId() {
        return changeIds.get(changeIds.size() - 1);
    }

    /** Whether this change stands for several saves by one user, coalesced. */
    public boolean isCoalesced() {
        return changeIds.size() > 1;
    }
}
