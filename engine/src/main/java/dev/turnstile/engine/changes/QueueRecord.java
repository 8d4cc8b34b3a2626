package dev.turnstile.engine.changes;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Table;

/** A change waiting in a QUEUE client's queue until acknowledged (written by the dispatcher in one JDBC batch). */
@Entity
@Table(name = "ts_feed_queue", indexes = @Index(name = "ts_feed_queue_client", columnList = "client_name, delivery_id"))
public class QueueRecord {
    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    @Column(name = "delivery_id")
    Long deliveryId;

    @Column(name = "client_name", nullable = false, length = 64)
    String client;

    @Column(name = "change_json", nullable = false, length = ChangeRecord.MAX_PROPERTIES_LENGTH)
    String change;

    protected QueueRecord() {
    }
}
