package dev.turnstile.api.changes;

/** A property's value before and after a change (null when it had or has none). */
public record PropertyChange(Object oldValue, Object newValue) {
}
