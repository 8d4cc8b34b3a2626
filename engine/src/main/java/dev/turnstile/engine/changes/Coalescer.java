package dev.turnstile.engine.changes;

import dev.turnstile.api.Change;
import dev.turnstile.api.PropertyChange;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Merges runs within one batch: consecutive changes to the same object by the same user of the same
 * kind become one, carrying every change id, the USN before the first and after the last, and for
 * each property the first old and the last new value. Another user, another kind or a change to
 * another object in between ends the run. A property that ends where it started stays listed (the
 * client learns it was touched).
 */
final class Coalescer {
    private Coalescer() {
    }

    static List<Change> coalesce(List<Change> changes) {
        List<Change> out = new ArrayList<>();
        for (Change c : changes) {
            Change last = out.isEmpty() ? null : out.get(out.size() - 1);
            if (last != null && last.objectId().equals(c.objectId()) && last.user().equals(c.user()) && last.kind() == c.kind()) {
                out.set(out.size() - 1, merge(last, c));
            } else {
                out.add(c);
            }
        }
        return out;
    }

    private static Change merge(Change a, Change b) {
        List<Long> ids = new ArrayList<>(a.changeIds());
        ids.addAll(b.changeIds());
        Map<String, PropertyChange> props = new LinkedHashMap<>(a.properties());
        b.properties().forEach((name, pb) -> {
            PropertyChange pa = props.get(name);
            props.put(name, pa == null ? pb : new PropertyChange(pa.oldValue(), pb.newValue()));
        });
        return new Change(ids, b.position(), b.objectId(), b.className(), b.user(), b.time(), b.kind(), a.usnBefore(),
                b.usnAfter(), props);
    }

}
