package dev.turnstile.api.changes;

import java.util.Set;
import java.util.TreeSet;

/**
 * Which changes a client receives: of these classes (and their subclasses' names as given), touching
 * any of these properties, of these kinds. An empty set means no restriction. A change that touches
 * none of the listed properties is not delivered; creations and deletions touch every property they
 * carry, locks and unlocks none (list no properties to receive them).
 *
 * @param classes the classes let through (their subclasses too); empty for all
 * @param properties the properties a change must touch; empty for any
 * @param kinds the kinds let through; empty for all
 */
public record ChangeFilter(Set<String> classes, Set<String> properties, Set<ChangeKind> kinds) {
    /** Lets every change through. */
    public static final ChangeFilter ALL = new ChangeFilter(Set.of(), Set.of(), Set.of());

    public ChangeFilter {
        classes = Set.copyOf(new TreeSet<>(classes));
        properties = Set.copyOf(new TreeSet<>(properties));
        kinds = Set.copyOf(kinds);
    }

    /** Lets through changes of these classes (and their subclasses) only. */
    public static ChangeFilter classes(String... names) {
        return new ChangeFilter(Set.of(names), Set.of(), Set.of());
    }

    /** This filter, also requiring a change to touch one of these properties. */
    public ChangeFilter withProperties(String... names) {
        return new ChangeFilter(classes, Set.of(names), kinds);
    }

    /** This filter, also requiring a change to be of one of these kinds. */
    public ChangeFilter withKinds(ChangeKind... chosen) {
        return new ChangeFilter(classes, properties, Set.of(chosen));
    }

    /** Whether {@code change} passes this filter. */
    public boolean matches(Change change) {
        if (!classes.isEmpty() && !classes.contains(change.className())) {
            return false;
        }
        if (!kinds.isEmpty() && !kinds.contains(change.kind())) {
            return false;
        }
        return properties.isEmpty() || change.properties().keySet().stream().anyMatch(properties::contains);
    }
}
