package dev.turnstile.api.dispenser;

/**
 * What this engine's takes of one strategy did since it opened ({@link Dispensers#statistics}).
 *
 * @param numbers numbers issued by {@code next} (in a host transaction, once it committed; those
 *                {@code numberOnCreate} takes are not counted)
 * @param conflicts take attempts another writer beat: a failed USN check, the counter's lock held
 */
public record DispenserStatistics(long numbers, long conflicts) {
}
