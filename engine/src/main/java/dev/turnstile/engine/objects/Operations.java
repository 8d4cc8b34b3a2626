package dev.turnstile.engine.objects;

import dev.turnstile.spi.OperationObserver;

import java.util.function.Supplier;

/**
 * The engine's operations as a host may observe them — each number taken, each save (a lock, an
 * unlock, a batch) and each dispatch pass — through one {@link OperationObserver} the host installs
 * ({@code ContentEngine.observeWith}). Unobserved, an operation just runs.
 */
public final class Operations {
    private static final OperationObserver UNOBSERVED = new OperationObserver() {
        @Override
        public <T> T observe(String name, Supplier<T> work, String... keyValues) {
            return work.get();
        }
    };

    private volatile OperationObserver observer = UNOBSERVED;

    /** From now on, every operation through {@code observer}; null: none. */
    public void observeWith(OperationObserver observer) {
        this.observer = observer == null ? UNOBSERVED : observer;
    }

    /** Runs {@code work} as the operation {@code name}. */
    public <T> T run(String name, Supplier<T> work, String... keyValues) {
        return observer.observe(name, work, keyValues);
    }
}
