package dev.turnstile.api;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;

/**
 * Which custom properties a fetch brings into the instance. System properties (Id, ClassName,
 * Creator, DateCreated, LastModifier, DateLastModified, UpdateSequenceNumber) always come. A null
 * filter, where a fetch takes one, brings every property, as FileNet's {@code fetchInstance(…, null)} does.
 */
public final class PropertyFilter {
    /** Every property of the class. */
    public static final PropertyFilter ALL = new PropertyFilter(null);

    private final Set<String> names;

    private PropertyFilter(Set<String> names) {
        this.names = names;
    }

    /** Just the named properties (and the system properties). */
    public static PropertyFilter of(String... names) {
        Set<String> set = new LinkedHashSet<>();
        for (String name : names) {
            set.add(Objects.requireNonNull(name, "property name"));
        }
        return new PropertyFilter(Collections.unmodifiableSet(set));
    }

    /** {@code filter}, or {@link #ALL} for null: a fetch given no filter brings every property. */
    public static PropertyFilter orAll(PropertyFilter filter) {
        return filter == null ? ALL : filter;
    }

    /** Whether a fetch with this filter brings {@code propertyName}. */
    public boolean includes(String propertyName) {
        return names == null || names.contains(propertyName);
    }

    /** Whether this filter brings every property. */
    public boolean isAll() {
        return names == null;
    }

    /** The named properties; empty for {@link #ALL}. */
    public Set<String> names() {
        return names == null ? Set.of() : names;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PropertyFilter other && Objects.equals(names, other.names);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(names);
    }

    @Override
    public String toString() {
        return names == null ? "PropertyFilter[ALL]" : "PropertyFilter" + names;
    }
}
