package dev.turnstile.engine.db;

import com.zaxxer.hikari.SQLExceptionOverride;

import java.sql.SQLException;
import java.util.Set;

/**
 * Tells the pool which H2 failures mean the connection is dead. Hikari evicts a connection whose
 * failure has a broken-connection SQLSTATE (class 08, PostgreSQL's 57P01 …), but H2 reports its
 * own codes: when the process serving a shared file stops or dies, every pooled connection to it
 * fails with "Connection is broken" or "Database is already closed" — and without eviction they
 * went on failing, call after call (15–23 s before a survivor worked again, in
 * H2ServingProcessKilledTest). Evicted, the next connection goes to the file's next server
 * ({@link SharedH2File} starts it).
 */
public final class BrokenH2Connections implements SQLExceptionOverride {
    /** H2's CONNECTION_BROKEN_1, DATABASE_IS_CLOSED and DATABASE_CALLED_AT_SHUTDOWN. */
    static final Set<String> DEAD = Set.of("90067", "90098", "90121");

    /**
     * A failure without an SQLSTATE — MariaDB's BatchUpdateException when the server goes away in
     * the middle of a batch — is left to Hikari's own rules: {@code Set.of(…).contains(null)} threw
     * a NullPointerException here, which reached callers in place of the outage (a take failed with
     * it during a MariaDB restart, in MariaDbDatabaseRestartIT).
     */
    @java.lang.Override
    public Override adjudicate(SQLException e) {
        return e.getSQLState() != null && DEAD.contains(e.getSQLState()) ? Override.MUST_EVICT : Override.CONTINUE_EVICT;
    }
}
