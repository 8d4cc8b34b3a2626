package dev.turnstile.api.dispenser;

/** When a dispenser's series starts again at its start value, decided by the engine's (database) clock in UTC. */
public enum ResetPeriod {
    NEVER, YEARLY, MONTHLY, DAILY
}
