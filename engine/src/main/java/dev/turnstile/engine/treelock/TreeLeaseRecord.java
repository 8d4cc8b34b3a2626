package dev.turnstile.engine.treelock;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Table;

import java.time.Instant;

/**
 * One granted request: its nodes (one "mode path" line each) and when it lapses. Releasing or
 * reaping deletes the row first, conditionally, so exactly one of them takes the marks back.
 */
@Entity
@Table(name = "ts_tree_lease", indexes = @Index(name = "ts_tree_lease_expiry", columnList = "expires_at"))
public class TreeLeaseRecord {
    static final int MAX_NODES_LENGTH = 600_000;

    @Id
    @Column(name = "lease_id", nullable = false, length = 36)
    String leaseId;

    /** The holder: the user of the session that took the lock. */
    @Column(name = "owner_info", nullable = false, length = 128)
    String owner;

    @Column(name = "lease_nodes", nullable = false, length = MAX_NODES_LENGTH)
    String nodes;

    @Column(name = "acquired_at", nullable = false)
    Instant acquiredAt;

    @Column(name = "expires_at", nullable = false)
    Instant expiresAt;

    @Column(name = "usn", nullable = false)
    long usn;

    protected TreeLeaseRecord() {
    }

    TreeLeaseRecord(String leaseId, String owner, String nodes, Instant acquiredAt, Instant expiresAt) {
        this.leaseId = leaseId;
        this.owner = owner;
        this.nodes = nodes;
        this.acquiredAt = acquiredAt;
        this.expiresAt = expiresAt;
    }
}
