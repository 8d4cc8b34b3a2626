package dev.turnstile.engine.treelock;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.Instant;

/**
 * One node that has ever been locked: how many leases hold it in each of Gray's modes, and the
 * waiter at the head of its queue. Rows are written only by conditional updates whose WHERE clause
 * is the compatibility check, so two incompatible marks can never both be counted.
 */
@Entity
@Table(name = "ts_tree_node")
public class TreeNodeRecord {
    @Id
    @Column(name = "node_path", nullable = false, length = 512)
    String path;

    @Column(name = "usn", nullable = false)
    long usn;

    @Column(name = "is_count", nullable = false)
    int isCount;

    @Column(name = "ix_count", nullable = false)
    int ixCount;

    @Column(name = "s_count", nullable = false)
    int sCount;

    @Column(name = "six_count", nullable = false)
    int sixCount;

    @Column(name = "x_count", nullable = false)
    int xCount;

    /** The oldest waiter for this node, which later requests that conflict with it yield to. */
    @Column(name = "head_lease", length = 36)
    String headLease;

    @Column(name = "head_mode", length = 3)
    String headMode;

    /** Arrival order of the head waiter: zero-padded microseconds, then its lease id. */
    @Column(name = "head_ticket", length = 60)
    String headTicket;

    @Column(name = "head_expires")
    Instant headExpires;

    protected TreeNodeRecord() {
    }
}
