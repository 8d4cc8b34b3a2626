package dev.turnstile.engine.changes;

import dev.turnstile.api.changes.Change;
import dev.turnstile.api.changes.PropertyChange;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Merges runs within one batch: consecutive changes to the same object by the same user of the same
 * kind become one, carrying every change id, the USN before the first and after the last, and for
 * each property the first old and the last new value. Runs are found on the whole batch, before
 * the client's filter: a change to the object by another user or of another kind ends the run even
 * when this client does not see it, so a merged change never spans another user's edit (its
 * user and USNs are never misattributed). A change the client sees to another object in between
 * ends the run too. A property that ends where it started stays listed (the client learns it was
 * touched).
 */
final class Coalescer {
    private Coalescer() {
    }

    /** The changes of {@code read} the client sees, with runs merged. */
    static List<Change> coalesce(List<Change> read, Predicate<Change> visible) {
        List<Change> out = new ArrayList<>();
        boolean runOpen = false; // whether the last change out may still grow
        for (Change c : read) {
            Change last = out.isEmpty() ? null : out.get(out.size() - 1);
            boolean sameObject = last != null && last.objectId().equals(c.objectId());
            if (runOpen && sameObject && last.user().equals(c.user()) && last.kind() == c.kind()) {
                if (visible.test(c)) {
                    out.set(out.size() - 1, merge(last, c));
                }
                continue;
            }
            if (sameObject) {
                runOpen = false; // another user or kind on this object, seen or not
            }
            if (visible.test(c)) {
                out.add(c);
                runOpen = true;
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
