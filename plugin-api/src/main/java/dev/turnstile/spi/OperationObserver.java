package dev.turnstile.spi;

import java.util.function.Supplier;

/**
 * Runs each of an engine's operations inside whatever the host measures or traces it with
 * ({@code ContentEngine.observeWith}): each number taken ({@code turnstile.dispenser.take}
 * {dispenser, strategy}), each save, lock, unlock and batch ({@code turnstile.object.save}
 * {operation, class}) and each dispatch pass ({@code turnstile.changes.dispatch} {dispatcher}).
 * {@code turnstile-micrometer}'s {@code TurnstileObservations} makes each a Micrometer Observation.
 */
public interface OperationObserver {
    /**
     * Runs {@code work}, observed as {@code name} with its low-cardinality {@code keyValues} (key,
     * value, key, value …), and returns its result; a failure of {@code work} is thrown on unchanged.
     */
    <T> T observe(String name, Supplier<T> work, String... keyValues);
}
