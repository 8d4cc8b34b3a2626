package dev.turnstile.api;

/** An instance of the built-in class {@code Folder} or one of its subclasses. */
public interface Folder extends IndependentObject {
}
