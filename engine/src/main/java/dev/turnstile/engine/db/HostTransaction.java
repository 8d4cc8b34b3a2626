package dev.turnstile.engine.db;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.spi.HostTransactions;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The host's transaction as the engine's work meets it ({@link HostTransactions}): whether one is
 * active on the calling thread, what runs when it commits, and the object rows each host
 * transaction of a thread has written or locked, until it ends — where the host says when its
 * transactions end ({@link HostTransactions#onCompletion}). A thread whose
 * host suspended a transaction that holds a row (Spring's {@code REQUIRES_NEW} inside a transaction
 * that took from the same dispenser) and asks for that row in its new transaction would wait on
 * its own suspended transaction, which resumes only after the new one ends: the database waits for
 * ever (PostgreSQL has no lock timeout by default). That request is refused at once instead.
 */
public final class HostTransaction {
    private final HostTransactions host;
    /** This thread's rows, each with the connection of the host transaction that holds it. */
    private final ThreadLocal<Map<UUID, Connection>> held = ThreadLocal.withInitial(HashMap::new);

    HostTransaction(HostTransactions host) {
        this.host = host;
    }

    /** Whether the calling thread's work joins the host's transaction. */
    public boolean isActive() {
        return host.current().isPresent();
    }

    /** Refuses an operation that needs transactions of its own when the caller is inside the host's. */
    public void refuse(String operation) {
        if (isActive()) {
            throw EngineRuntimeException.of(ExceptionCode.E_HOST_TRANSACTION, operation + " cannot run inside the host's"
                    + " transaction: it commits transactions of its own, which other nodes must see at once. Call it"
                    + " outside the host's transaction.");
        }
    }

    /** Outside a host transaction, asks the host whether the engine may commit {@code what} on its own (it throws if not). */
    public void outside(Supplier<String> what) {
        if (!isActive()) {
            host.outsideTransaction(what.get());
        }
    }

    /**
     * Before the engine's work on {@code connection} in the host's transaction: on H2 a transaction
     * below REPEATABLE READ is refused ({@link #requireRepeatableRead}); a transaction that
     * has run out of time is refused, and on PostgreSQL, whose lock waits have no limit of their own,
     * the engine's lock waits end when the transaction's time does ({@code SET LOCAL lock_timeout}:
     * this transaction only; the host's own statements, bounded by the same deadline, lose nothing).
     */
    void bound(Connection connection, String productName, Supplier<String> what) {
        if (Sql.isH2(productName)) {
            requireRepeatableRead(connection, what);
        }
        Optional<Duration> left = host.timeLeft();
        if (left.isEmpty()) {
            return;
        }
        if (left.get().toMillis() <= 0) {
            throw timedOut(what, null);
        }
        if (Sql.isPostgres(productName)) {
            try (Statement set = connection.createStatement()) {
                set.execute("SET LOCAL lock_timeout = " + left.get().toMillis());
            } catch (SQLException e) {
                throw EngineRuntimeException.of(ExceptionCode.E_DATABASE_UNAVAILABLE, "Could not bound " + what.get()
                        + " by the host's transaction's time left: " + e.getMessage(), e);
            }
        }
    }

    /**
     * H2 loses updates at READ COMMITTED: a transaction that waited for another's row lock and then
     * rolls back can put the row back as it was before the other's commit ({@link EnginePool#isolation}).
     * In a host's transaction that is a number issued twice, so the engine's work joins one on H2
     * only at REPEATABLE READ, where H2 fails such a statement instead (40001: the host runs its
     * transaction again). Checked before the work's first statement: a refusal changed nothing.
     */
    private static void requireRepeatableRead(Connection connection, Supplier<String> what) {
        int isolation;
        try {
            isolation = connection.getTransactionIsolation();
        } catch (SQLException e) {
            throw EngineRuntimeException.of(ExceptionCode.E_DATABASE_UNAVAILABLE, "Could not read the isolation of the"
                    + " host's transaction before " + what.get() + ": " + e.getMessage(), e);
        }
        if (isolation < Connection.TRANSACTION_REPEATABLE_READ) {
            String done = what.get();
            throw EngineRuntimeException.of(ExceptionCode.E_HOST_TRANSACTION, Character.toUpperCase(done.charAt(0))
                    + done.substring(1) + " cannot join the host's transaction on H2 at " + isolationName(isolation)
                    + ": H2 loses updates at that isolation (a rollback can put back a row as it was before another"
                    + " transaction's commit, and a number is issued twice). Run the host's transactions at REPEATABLE READ"
                    + " (the pool's transactionIsolation = TRANSACTION_REPEATABLE_READ; Spring: @Transactional(isolation ="
                    + " Isolation.REPEATABLE_READ)) and run a transaction again when it fails with a conflict. Nothing was done.");
        }
    }

    private static String isolationName(int isolation) {
        return switch (isolation) {
            case Connection.TRANSACTION_NONE -> "no isolation";
            case Connection.TRANSACTION_READ_UNCOMMITTED -> "READ UNCOMMITTED";
            default -> "READ COMMITTED";
        };
    }

    /** {@code what} gave up a lock wait, or was cancelled, in the host's transaction: said as the host's to settle. */
    static EngineRuntimeException timedOut(Supplier<String> what, Throwable cause) {
        String done = what.get();
        return EngineRuntimeException.of(ExceptionCode.E_HOST_TRANSACTION, Character.toUpperCase(done.charAt(0)) + done.substring(1)
                + " in the host's transaction ran out of time:"
                + " the transaction's timeout passed, or the database's lock wait limit, while another transaction held the row"
                + " (or the host cancelled the statement). Nothing of it was done; roll the transaction back and run it again,"
                + " or give it more time." + (cause == null ? "" : " " + Database.rootMessage(cause)), cause);
    }

    /** {@code action} once the host's transaction commits, if the host says when; else (and outside one) now. */
    public void afterCommit(Runnable action) {
        if (host.current().isEmpty() || !host.onCompletion(committed -> {
            if (committed) {
                action.run();
            }
        })) {
            action.run();
        }
    }

    /**
     * In the host's transaction, notes that it writes the object row {@code id}, or refuses with
     * {@code E_HOST_TRANSACTION} when another host transaction of this thread, suspended, holds it;
     * outside one, nothing.
     */
    public void claim(UUID id, Supplier<String> what) {
        host.current().ifPresent(connection -> claim(connection, id, what));
    }

    private void claim(Connection connection, UUID id, Supplier<String> what) {
        Map<UUID, Connection> rows = held.get();
        Connection holder = rows.get(id);
        if (holder == null) {
            if (host.onCompletion(committed -> rows.remove(id, connection))) {
                rows.put(id, connection);
            }
        } else if (holder != connection) {
            throw EngineRuntimeException.of(ExceptionCode.E_HOST_TRANSACTION, what.get() + " would wait for ever: another"
                    + " transaction of this thread, suspended until this one ends, holds the same row since it wrote it"
                    + " (Spring: a REQUIRES_NEW method called inside a transaction that took from the same dispenser or"
                    + " saved the same object). Do it in the outer transaction (REQUIRED), or before the outer"
                    + " transaction writes the row.");
        }
    }
}
