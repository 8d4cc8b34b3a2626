package dev.turnstile.engine.dispenser;

import jakarta.persistence.Column;
import jakarta.persistence.Embeddable;
import jakarta.persistence.EmbeddedId;
import jakarta.persistence.Entity;
import jakarta.persistence.Table;

import java.io.Serializable;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Objects;

/**
 * The block a user's request key was answered with (see {@code Dispenser.next(count, requestKey)}):
 * written in the transaction that takes the numbers, so a key either has its block or never took
 * one. A repeat until {@code expiresAt} gets the same block.
 */
@Entity
@Table(name = "ts_dispenser_request")
public class RequestRecord {
    @EmbeddedId
    Key key;

    @Column(name = "first_number", nullable = false)
    long first;

    @Column(name = "number_count", nullable = false)
    int count;

    @Column(name = "period", length = 16)
    String period;

    @Column(name = "issued_on", nullable = false)
    LocalDate issuedOn;

    @Column(name = "expires_at", nullable = false)
    Instant expiresAt;

    protected RequestRecord() {
    }

    RequestRecord(Key key) {
        this.key = key;
    }

    @Embeddable
    public static class Key implements Serializable {
        private static final long serialVersionUID = 1L;

        @Column(name = "dispenser", nullable = false, length = 64)
        String dispenser;

        /** Who sent the key: another user's same key is another request. */
        @Column(name = "requested_by", nullable = false, length = 128)
        String requestedBy;

        @Column(name = "request_key", nullable = false, length = 128)
        String requestKey;

        protected Key() {
        }

        Key(String dispenser, String requestedBy, String requestKey) {
            this.dispenser = dispenser;
            this.requestedBy = requestedBy;
            this.requestKey = requestKey;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.dispenser.equals(dispenser) && k.requestedBy.equals(requestedBy)
                    && k.requestKey.equals(requestKey);
        }

        @Override
        public int hashCode() {
            return Objects.hash(dispenser, requestedBy, requestKey);
        }
    }
}
