package dev.turnstile.api.dispenser;

import dev.turnstile.api.ExceptionCode;

import java.util.List;
import java.util.Set;

/** The dispensers of one session (numbers are registered to its user). */
public interface Dispensers {
    /**
     * A dispenser created earlier (by any process) or configured; {@link ExceptionCode#E_OBJECT_NOT_FOUND}
     * otherwise. Its strategy is this engine's configured one, else the one it was created with.
     */
    Dispenser get(String name);

    /**
     * The dispenser with this process's strategy settings: the strategy asked for is used even where
     * the dispenser was created with another (every strategy guards the same counter row, so mixed
     * strategies keep the series gap-free; they contend less well), and the engine logs so once.
     */
    Dispenser get(String name, DispenserConfig config);

    /**
     * Admin: creates a dispenser, or returns the existing one if its stored series settings match;
     * different settings fail with {@link ExceptionCode#E_BAD_VALUE}.
     */
    Dispenser create(String name, DispenserConfig config);

    /** The names configured in this engine's turnstile.yaml. */
    Set<String> configuredNames();

    /**
     * Admin: every dispenser in the database, by name (configured or created since), sorted;
     * {@code E_ACCESS_DENIED} without the dispenser admin role.
     */
    List<String> names();

    /** What this engine's takes of {@code strategy} did since it opened: numbers issued, conflicts. */
    DispenserStatistics statistics(DispenserStrategy strategy);
}
