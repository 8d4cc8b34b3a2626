package dev.turnstile.api;

/** An instance of the built-in class {@code Document} or one of its subclasses. */
public interface Document extends IndependentObject {
}
