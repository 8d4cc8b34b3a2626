package dev.turnstile.spi;

import dev.turnstile.api.ExceptionCode;

import java.sql.Connection;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Where the host application's transaction is. When the host has a transaction active on the
 * calling thread, {@link #current()} gives its JDBC connection and Turnstile's work on that thread —
 * saves, object locks, dispenser numbers (also by {@code numberOnCreate}), issued-number registers
 * and change records — runs on it, without a commit of its own: it commits or rolls back with the
 * host's transaction. With none, Turnstile runs its own transactions.
 *
 * <p>Inside a host transaction nothing is retried (a failed statement may have ended the host's
 * transaction; the host decides), and operations that need transactions of their own — tree locks,
 * edit locks, change dispatching — fail with {@link ExceptionCode#E_HOST_TRANSACTION} instead of
 * half-joining.
 *
 * <p>{@link JdbcHostTransactions} is for a host that hands its connection over explicitly; a host
 * on Spring uses its transaction manager's binding.
 */
@FunctionalInterface
public interface HostTransactions {
    /** No host transactions: Turnstile always runs its own (the default). */
    HostTransactions NONE = Optional::empty;

    /** The connection of the host's transaction active on the calling thread, if any. */
    Optional<Connection> current();

    /**
     * Runs {@code action} when the host's transaction active on the calling thread ends, told whether
     * it committed; false, and nothing runs, when this host cannot tell (the default). With it the
     * engine counts a number in its meters only once its transaction committed, and refuses at once a
     * write that would wait for a suspended transaction of the same thread (Spring's
     * {@code REQUIRES_NEW} inside a transaction that wrote the same row) instead of waiting for ever.
     */
    default boolean onCompletion(Consumer<Boolean> action) {
        return false;
    }

    /**
     * How long the host's transaction active on the calling thread may still run, when it has a
     * timeout (Spring: {@code @Transactional(timeout = …)}); zero once it has run out. The engine's
     * lock waits in that transaction end by then (on PostgreSQL, whose lock waits have no limit of
     * their own; MariaDB and H2 bound them by their lock wait timeout). Empty: no timeout (the default).
     */
    default Optional<Duration> timeLeft() {
        return Optional.empty();
    }

    /**
     * Asked, on the calling thread, before the application takes a number or writes an object's
     * values (a create, a change, a delete) with no host transaction active: the engine would commit
     * it in a transaction of its own, apart from whatever the application writes next. Throw
     * ({@link ExceptionCode#E_HOST_TRANSACTION}, saying what to add) to refuse it; return to let the
     * engine commit it (the default). A save that takes or gives back a cooperative lock is not asked
     * about — a lock is for other processes and commits at once — nor is the engine's own work.
     */
    default void outsideTransaction(String what) {
    }
}
