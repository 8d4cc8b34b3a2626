package dev.turnstile.api.dispenser;

/** When a dispenser's series starts again at its start value, decided by the engine's (database) clock in UTC. */
public enum ResetPeriod {
    /** One series for ever. */
    NEVER,
    /** A new series each calendar year (UTC, by the database's clock). */
    YEARLY,
    /** A new series each calendar month. */
    MONTHLY,
    /** A new series each day. */
    DAILY
}
