package dev.turnstile.engine.dispenser;

import jakarta.persistence.Column;
import jakarta.persistence.Embeddable;
import jakarta.persistence.EmbeddedId;
import jakarta.persistence.Entity;
import jakarta.persistence.Table;

import java.io.Serializable;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * One issued number of a registered series, or a range of numbers an admin skipped (from the key's
 * number to {@code lastNumber}, voided). A plain take's number is written in doubt until its caller
 * has it ({@link Confirmations}). The key (dispenser, period, number) makes a duplicate
 * number impossible at the database level, whatever a strategy does; a skipped range lies past
 * every number issued before it, and the counter never goes back in a registered series.
 */
@Entity
@Table(name = "ts_dispenser_issue")
public class IssueRecord {
    @EmbeddedId
    Key key;

    @Column(name = "issued_by", nullable = false, length = 128)
    String issuedBy;

    @Column(name = "issued_at", nullable = false)
    Instant issuedAt;

    @Column(name = "object_id")
    UUID objectId;

    @Column(name = "voided_by", length = 128)
    String voidedBy;

    @Column(name = "void_reason", length = 400)
    String voidReason;

    /** Taken by a plain take whose answer has not been confirmed to have reached its caller ({@link Confirmations}). */
    @Column(name = "in_doubt", nullable = false)
    boolean inDoubt;

    /** The last number of a skipped range; null for one number. */
    @Column(name = "last_number")
    Long lastNumber;

    long last() {
        return lastNumber != null ? lastNumber : key.number;
    }

    protected IssueRecord() {
    }

    IssueRecord(String dispenser, String period, long number, String issuedBy, Instant issuedAt, boolean inDoubt) {
        this.key = new Key(dispenser, period, number);
        this.issuedBy = issuedBy;
        this.issuedAt = issuedAt;
        this.inDoubt = inDoubt;
    }

    @Embeddable
    public static class Key implements Serializable {
        private static final long serialVersionUID = 1L;

        @Column(name = "dispenser", nullable = false, length = 64)
        String dispenser;

        @Column(name = "period", nullable = false, length = 16)
        String period;

        @Column(name = "number", nullable = false)
        long number;

        protected Key() {
        }

        Key(String dispenser, String period, long number) {
            this.dispenser = dispenser;
            this.period = period;
            this.number = number;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.number == number && k.dispenser.equals(dispenser) && k.period.equals(period);
        }

        @Override
        public int hashCode() {
            return Objects.hash(dispenser, period, number);
        }
    }
}
