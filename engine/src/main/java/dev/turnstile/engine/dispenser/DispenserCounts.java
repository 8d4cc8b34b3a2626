package dev.turnstile.engine.dispenser;

import dev.turnstile.api.dispenser.DispenserStrategy;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Numbers issued and races lost, by the strategy of the dispenser that issued or lost them, since
 * the engine opened: what the metrics report ({@code turnstile.dispenser.*}). A lost race is a take
 * attempt another writer beat: a USN check that failed, or the counter's cooperative lock held.
 */
public final class DispenserCounts {
    private final Map<DispenserStrategy, LongAdder> numbers = new EnumMap<>(DispenserStrategy.class);
    private final Map<DispenserStrategy, LongAdder> conflicts = new EnumMap<>(DispenserStrategy.class);

    DispenserCounts() {
        for (DispenserStrategy s : DispenserStrategy.values()) {
            numbers.put(s, new LongAdder());
            conflicts.put(s, new LongAdder());
        }
    }

    LongAdder conflictsOf(DispenserStrategy strategy) {
        return conflicts.get(strategy);
    }

    void issued(DispenserStrategy strategy, int count) {
        numbers.get(strategy).add(count);
    }

    public long numbers(DispenserStrategy strategy) {
        return numbers.get(strategy).sum();
    }

    public long conflicts(DispenserStrategy strategy) {
        return conflicts.get(strategy).sum();
    }
}
