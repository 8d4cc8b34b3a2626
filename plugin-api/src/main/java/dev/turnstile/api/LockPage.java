package dev.turnstile.api;

import java.util.List;

/**
 * One page of a {@link LockQuery}'s answer, and how many locks the whole answer holds: a list can
 * say "showing 51–100 of 100,000" and never hide what it does not show.
 *
 * @param items  the page's locks, in the query's order
 * @param total  how many locks match the query's filters, on every page
 * @param offset the page's first row, as the query asked
 * @param <T>    the kind of lock
 */
public record LockPage<T>(List<T> items, long total, int offset) {
    /** Copies the items. */
    public LockPage {
        items = List.copyOf(items);
    }

    /** Whether rows follow this page. */
    public boolean hasMore() {
        return offset + items.size() < total;
    }
}
