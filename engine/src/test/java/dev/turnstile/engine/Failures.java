package dev.turnstile.engine;

import dev.turnstile.api.EngineRuntimeException;

/** Test helper: run an action that must fail with an engine exception, and return it. */
public final class Failures {
    private Failures() {
    }

    public static EngineRuntimeException failure(Runnable action) {
        try {
            action.run();
        } catch (EngineRuntimeException e) {
            return e;
        }
        throw new AssertionError("expected an EngineRuntimeException");
    }
}
