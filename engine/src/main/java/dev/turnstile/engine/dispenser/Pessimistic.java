package dev.turnstile.engine.dispenser;

import dev.turnstile.api.dispenser.Dispenser;
import dev.turnstile.api.dispenser.NumberBlock;
import dev.turnstile.api.retry.RetryPolicy;
import dev.turnstile.engine.objects.ObjectStoreServices;
import dev.turnstile.engine.objects.ObjectTransaction;

import java.util.UUID;

/**
 * Reads the counter row FOR UPDATE and writes it in one transaction: waiters queue on the row lock
 * instead of failing. The write is a normal USN-checked save, so the USN still moves and
 * first-writer-wins holders elsewhere see the change.
 */
final class Pessimistic implements Strategy {
    private final ObjectStoreServices objects;
    private final String user;
    private final UUID id;
    private final RetryPolicy policy;
    private final DispenserStatements alone;
    /** For messages: the id is what the statements use. */
    private final String name;

    Pessimistic(ObjectStoreServices objects, DispenserStatements alone, String user, String name, UUID id, RetryPolicy policy) {
        this.objects = objects;
        this.alone = alone;
        this.user = user;
        this.name = name;
        this.id = id;
        this.policy = policy;
    }

    @Override
    public NumberBlock take(int count) {
        return policy.call(() -> takeOnce(count));
    }

    /**
     * One attempt, for a strategy whose policy is already running, that waits on the row lock: one
     * statement where it can be ({@link PostgresDispenserStatements}), else one transaction.
     */
    NumberBlock takeOnce(int count) {
        NumberBlock taken = takeAlone(count);
        return taken != null ? taken : objects.inTransaction(() -> "taking " + count + " number(s) from dispenser " + name, user,
                tx -> take(tx, id, count));
    }

    /** The take as one statement, or null (nothing taken) where it needs a transaction. */
    NumberBlock takeAlone(int count) {
        return alone.take(id, name, count, user);
    }

    /** Moves the counter row on by {@code count} under its row lock, in {@code tx}: the numbers taken. */
    static NumberBlock take(ObjectTransaction tx, UUID id, int count) {
        return Series.taken(tx.updateLocked(Dispenser.CLASS_NAME, id, values -> Series.take(values, count)), count, tx.now());
    }
}
