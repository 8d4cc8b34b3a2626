package dev.turnstile.api.changes;

/**
 * A property's value before and after a change (null when it had or has none).
 *
 * @param oldValue the value before the change, or null
 * @param newValue the value after the change, or null
 */
public record PropertyChange(Object oldValue, Object newValue) {
}
