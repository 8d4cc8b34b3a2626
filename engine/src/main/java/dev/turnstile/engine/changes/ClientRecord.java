package dev.turnstile.engine.changes;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Table;

import java.time.Instant;

/**
 * A client and its dispatch state — the seed's dispatch table: the position it has been given
 * everything up to, when a dispatcher last touched it, and which dispatcher holds it until when.
 * Every change of this row is a USN-checked update, so two dispatchers never hold one client.
 */
@Entity
@Table(name = "ts_feed_client", indexes = @Index(name = "ts_feed_client_touched", columnList = "touched_at"))
public class ClientRecord {
    @Id
    @Column(name = "client_name", nullable = false, length = 64)
    String name;

    @Column(name = "filter_json", nullable = false, length = 4000)
    String filter;

    @Column(name = "delivery_mode", nullable = false, length = 8)
    String mode;

    @Column(name = "feed_position", nullable = false)
    long position;

    @Column(name = "touched_at", nullable = false)
    Instant touchedAt;

    @Column(name = "holder", length = 64)
    String holder;

    @Column(name = "lease_until")
    Instant leaseUntil;

    @Column(name = "usn", nullable = false)
    long usn;

    protected ClientRecord() {
    }
}
