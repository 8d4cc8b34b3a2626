package dev.turnstile.api.treelock;

import dev.turnstile.api.EngineRuntimeException;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A node of a hierarchy, as the path of typed segments from the root down:
 * {@code site:O/workshop:A/bench:1}. Two paths are related when one is a prefix of the other
 * (ancestor and descendant) or they are equal; locks on unrelated paths never conflict.
 *
 * <p>A type is 1 to 64 letters, digits, {@code _} or {@code -}; an id is 1 to 128 characters
 * other than {@code /}, {@code :} and control characters; a path has at most
 * {@value #MAX_DEPTH} segments and {@value #MAX_LENGTH} characters.
 */
public final class TreePath implements Comparable<TreePath> {
    /** The most segments a path may have. */
    public static final int MAX_DEPTH = 32;
    /** The most characters a path's text may have. */
    public static final int MAX_LENGTH = 512;

    /** One level of a path: the node's type and its id among the parent's children.
     *
     * @param type the node's type (site, workshop, bench …)
     * @param id the node's id among its siblings of that type
     */
    public record Segment(String type, String id) {
        public Segment {
            String problem = problemWith(type, id);
            if (problem != null) {
                throw EngineRuntimeException.badArgument("tree path segment", type + ":" + id, problem);
            }
        }

        @Override
        public String toString() {
            return type + ":" + id;
        }
    }

    private final List<Segment> segments;
    private final String text;

    private TreePath(List<Segment> segments) {
        this.segments = Collections.unmodifiableList(segments);
        this.text = String.join("/", segments.stream().map(Segment::toString).toList());
        if (segments.isEmpty() || segments.size() > MAX_DEPTH || text.length() > MAX_LENGTH) {
            throw EngineRuntimeException.badArgument("tree path", text, "a path has 1 to " + MAX_DEPTH
                    + " segments and at most " + MAX_LENGTH + " characters");
        }
    }

    /** Parses {@code type:id/type:id/...}; a bad path fails with {@code E_BAD_VALUE} naming it and the rule. */
    public static TreePath parse(String text) {
        if (text == null || text.isEmpty()) {
            throw EngineRuntimeException.badArgument("tree path", text, "expected type:id/type:id/..., e.g. site:O/workshop:A");
        }
        List<Segment> segments = new ArrayList<>();
        for (String part : text.split("/", -1)) {
            int colon = part.indexOf(':');
            if (colon < 0) {
                throw EngineRuntimeException.badArgument("tree path", text, "segment '" + part
                        + "' is not type:id (e.g. site:O/workshop:A)");
            }
            String problem = problemWith(part.substring(0, colon), part.substring(colon + 1));
            if (problem != null) {
                throw EngineRuntimeException.badArgument("tree path", text, "segment '" + part + "': " + problem);
            }
            segments.add(new Segment(part.substring(0, colon), part.substring(colon + 1)));
        }
        return new TreePath(segments);
    }

    /** The root node of type {@code type} and id {@code id}. */
    public static TreePath root(String type, String id) {
        return new TreePath(List.of(new Segment(type, id)));
    }

    /** This node's child of type {@code type} and id {@code id}. */
    public TreePath child(String type, String id) {
        List<Segment> longer = new ArrayList<>(segments);
        longer.add(new Segment(type, id));
        return new TreePath(longer);
    }

    /** The parent, or null for a root. */
    public TreePath parent() {
        return segments.size() == 1 ? null : new TreePath(new ArrayList<>(segments.subList(0, segments.size() - 1)));
    }

    /** The segments from the root down. */
    public List<Segment> segments() {
        return segments;
    }

    /** How many segments the path has (1 for a root). */
    public int depth() {
        return segments.size();
    }

    /** The node itself: the last segment. */
    public Segment last() {
        return segments.get(segments.size() - 1);
    }

    /** True if this is a proper ancestor of {@code other}. */
    public boolean isAncestorOf(TreePath other) {
        return other.segments.size() > segments.size() && other.segments.subList(0, segments.size()).equals(segments);
    }

    /** True if the two are equal or one is an ancestor of the other: locks on them conflict. */
    public boolean isRelatedTo(TreePath other) {
        return equals(other) || isAncestorOf(other) || other.isAncestorOf(this);
    }

    /** Orders by segments, so an ancestor sorts before its descendants; the order locks are taken in. */
    @Override
    public int compareTo(TreePath o) {
        int n = Math.min(segments.size(), o.segments.size());
        for (int i = 0; i < n; i++) {
            Segment a = segments.get(i);
            Segment b = o.segments.get(i);
            int c = a.type.compareTo(b.type);
            if (c == 0) {
                c = a.id.compareTo(b.id);
            }
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(segments.size(), o.segments.size());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TreePath p && p.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    /** The canonical text, which {@link #parse} reads back. */
    @Override
    public String toString() {
        return text;
    }

    private static String problemWith(String type, String id) {
        if (type == null || !type.matches("[A-Za-z0-9_-]{1,64}")) {
            return "a type is 1 to 64 letters, digits, '_' or '-'";
        }
        if (id == null || id.isEmpty() || id.length() > 128
                || id.chars().anyMatch(c -> c == '/' || c == ':' || Character.isISOControl(c))) {
            return "an id is 1 to 128 characters other than '/', ':' and control characters";
        }
        return null;
    }
}
