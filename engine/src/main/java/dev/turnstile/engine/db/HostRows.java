package dev.turnstile.engine.db;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.spi.HostTransactions;

import java.sql.Connection;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The object rows each host transaction of a thread has written or locked, until it ends — where
 * the host says when its transactions end ({@link HostTransactions#onCompletion}). A thread whose
 * host suspended a transaction that holds a row (Spring's {@code REQUIRES_NEW} inside a transaction
 * that took from the same dispenser) and asks for that row in its new transaction would wait on
 * its own suspended transaction, which resumes only after the new one ends: the database waits for
 * ever (PostgreSQL has no lock timeout by default). That request is refused at once instead.
 */
final class HostRows {
    private final HostTransactions host;
    /** This thread's rows, each with the connection of the host transaction that holds it. */
    private final ThreadLocal<Map<UUID, Connection>> held = ThreadLocal.withInitial(HashMap::new);

    HostRows(HostTransactions host) {
        this.host = host;
    }

    /**
     * Notes that the host transaction on {@code connection} writes the row {@code id}, or refuses
     * with {@code E_HOST_TRANSACTION} when another host transaction of this thread, suspended,
     * holds it.
     */
    void claim(Connection connection, UUID id, Supplier<String> what) {
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
