package dev.turnstile.engine;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.engine.db.Database;
import dev.turnstile.engine.dispenser.DispenserServices;

/** For tests of a capability's package: the engine's services of that capability. */
public final class EngineInternals {
    private EngineInternals() {
    }

    public static Database database(ContentEngine engine) {
        return ((DefaultContentEngine) engine).database();
    }

    public static DispenserServices dispenserServices(ContentEngine engine) {
        return ((DefaultContentEngine) engine).dispenserServices();
    }
}
