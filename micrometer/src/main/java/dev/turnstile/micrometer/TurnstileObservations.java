package dev.turnstile.micrometer;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.spi.OperationObserver;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import java.util.function.Supplier;

/**
 * Micrometer Observations around the engine's operations, so that a host's tracing and timers show
 * them (Micrometer is optional: only a host that calls this needs it):
 *
 * <ul>
 * <li>{@code turnstile.dispenser.take} {dispenser, strategy}: each {@code next}, from the call to the
 *     numbers;</li>
 * <li>{@code turnstile.object.save} {operation = save, lock, unlock or batch; class}: each save, lock
 *     and unlock of an object, and each batch;</li>
 * <li>{@code turnstile.changes.dispatch} {dispatcher}: each dispatch pass.</li>
 * </ul>
 *
 * A failure is recorded on its observation and thrown on, unchanged.
 */
public final class TurnstileObservations {
    private TurnstileObservations() {
    }

    /** From now on, every take, save and dispatch pass of {@code engine} is observed in {@code registry}. */
    public static void observe(ContentEngine engine, ObservationRegistry registry) {
        engine.observeWith(new OperationObserver() {
            @Override
            public <T> T observe(String name, Supplier<T> work, String... keyValues) {
                Observation observation = Observation.createNotStarted(name, registry);
                for (int i = 0; i + 1 < keyValues.length; i += 2) {
                    observation.lowCardinalityKeyValue(keyValues[i], keyValues[i + 1]);
                }
                return observation.observe(work);
            }
        });
    }
}
