package dev.turnstile.engine.breaks;

import dev.turnstile.api.LockBreak;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Table;

import java.time.Instant;

/** A broken lock of any kind, by its token: the row {@link LockBreaks} writes in the breaking transaction. */
@Entity
@Table(name = "ts_lock_break", indexes = @Index(name = "ts_lock_break_at", columnList = "broken_at"))
public class LockBreakRecord {
    static final int MAX_WHAT = 600;

    @Id
    @Column(name = "lock_token", nullable = false, length = 64)
    String lockToken;

    @Column(name = "lock_kind", nullable = false, length = 16)
    String kind;

    @Column(name = "holder", nullable = false, length = 128)
    String holder;

    @Column(name = "locked_what", nullable = false, length = MAX_WHAT)
    String lockedWhat;

    @Column(name = "broken_by", nullable = false, length = 128)
    String brokenBy;

    @Column(name = "broken_at", nullable = false)
    Instant brokenAt;

    @Column(name = "reason", nullable = false, length = LockBreak.MAX_REASON)
    String reason;

    protected LockBreakRecord() {
    }

    LockBreakRecord(LockBreak b) {
        this.lockToken = b.lockToken();
        this.kind = b.kind().name();
        this.holder = b.holder();
        // A tree lock of many nodes is named by its first ones.
        this.lockedWhat = b.lockedWhat().length() <= MAX_WHAT ? b.lockedWhat() : b.lockedWhat().substring(0, MAX_WHAT - 2) + " …";
        this.brokenBy = b.brokenBy();
        this.brokenAt = b.brokenAt();
        this.reason = b.reason();
    }

    LockBreak toBreak() {
        return new LockBreak(LockBreak.Kind.valueOf(kind), lockToken, holder, lockedWhat, brokenBy, brokenAt, reason);
    }
}
