package dev.turnstile.engine.objects;

import java.util.function.Supplier;

/**
 * The engine's operations as a host may observe them — each number taken, each save (a lock, an
 * unlock, a batch) and each dispatch pass — through one {@link Observer} the host installs
 * ({@code TurnstileObservations}: Micrometer Observations, so that a host's tracing shows them).
 * Unobserved, an operation just runs.
 */
public final class Operations {
    /** Runs an operation inside whatever the host measures or traces it with. */
    public interface Observer {
        /** {@code work}, observed as {@code name} with its low-cardinality {@code keyValues} (key, value, key, value …). */
        <T> T observe(String name, Supplier<T> work, String... keyValues);
    }

    private static final Observer UNOBSERVED = new Observer() {
        @Override
        public <T> T observe(String name, Supplier<T> work, String... keyValues) {
            return work.get();
        }
    };

    private volatile Observer observer = UNOBSERVED;

    /** From now on, every operation through {@code observer}; null: none. */
    public void observeWith(Observer observer) {
        this.observer = observer == null ? UNOBSERVED : observer;
    }

    /** Runs {@code work} as the operation {@code name}. */
    public <T> T run(String name, Supplier<T> work, String... keyValues) {
        return observer.observe(name, work, keyValues);
    }
}
