package dev.turnstile.engine.db;

import com.zaxxer.hikari.SQLExceptionOverride.Override;
import org.junit.jupiter.api.Test;

import java.sql.BatchUpdateException;
import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;

class BrokenH2ConnectionsTest {
    private final BrokenH2Connections rules = new BrokenH2Connections();

    @Test
    void h2sBrokenConnectionCodes_evict() {
        assertThat(rules.adjudicate(new SQLException("Connection is broken", "90067"))).isEqualTo(Override.MUST_EVICT);
        assertThat(rules.adjudicate(new SQLException("Database is already closed", "90098"))).isEqualTo(Override.MUST_EVICT);
    }

    /**
     * MariaDB's driver throws a BatchUpdateException without an SQLSTATE when the server goes away
     * in the middle of a batch: that threw a NullPointerException here, and a caller's take failed
     * with it during a database restart instead of being retried as an outage.
     */
    @Test
    void aFailureWithoutAnSqlState_isLeftToHikarisRules_notANullPointerException() {
        assertThat(rules.adjudicate(new BatchUpdateException("(conn=49) Socket error", null, new int[0]))).isEqualTo(Override.CONTINUE_EVICT);
        assertThat(rules.adjudicate(new SQLException("lock wait timeout", "40001"))).isEqualTo(Override.CONTINUE_EVICT);
    }
}
