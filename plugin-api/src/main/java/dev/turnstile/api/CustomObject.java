package dev.turnstile.api;

/** An instance of the built-in class {@code CustomObject} or one of its subclasses. */
public interface CustomObject extends IndependentObject {
}
