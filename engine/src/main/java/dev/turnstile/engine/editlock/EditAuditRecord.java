package dev.turnstile.engine.editlock;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Table;

import java.time.Instant;

/** One edit lock operation: who, what, when, outcome. */
@Entity
@Table(name = "ts_edit_audit", indexes = @Index(name = "ts_edit_audit_resource", columnList = "resource_id"))
public class EditAuditRecord {
    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    @Column(name = "audit_id")
    Long id;

    @Column(name = "at_time", nullable = false)
    Instant at;

    @Column(name = "user_id", nullable = false, length = 128)
    String userId;

    @Column(name = "operation", nullable = false, length = 16)
    String operation;

    @Column(name = "resource_id", length = 2000)
    String resourceId;

    @Column(name = "outcome", nullable = false, length = 16)
    String outcome;

    @Column(name = "detail", length = 400)
    String detail;

    protected EditAuditRecord() {
    }

    EditAuditRecord(Instant at, String userId, String operation, String resourceId, String outcome, String detail) {
        this.at = at;
        this.userId = userId;
        this.operation = operation;
        // A refusal of a hostile request (a lock id of thousands of characters) is still recorded.
        this.resourceId = cut(resourceId, 2000);
        this.outcome = outcome;
        this.detail = cut(detail, 400);
    }

    private static String cut(String s, int max) {
        return s == null || s.length() <= max ? s : s.substring(0, max);
    }
}
