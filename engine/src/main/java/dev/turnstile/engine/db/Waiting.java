package dev.turnstile.engine.db;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * This process's word, in {@code ts_waiting}, that it has waiters on a topic (one object's unlocks,
 * the releases under one root of the tree locks, the change feed): on PostgreSQL a release sends a
 * note only while another process has said so ({@link Notifications#anotherProcessWaits}).
 */
public final class Waiting {
    private final Database database;
    private final Notifications notifications;

    Waiting(Database database, Notifications notifications) {
        this.database = database;
        this.notifications = notifications;
    }

    /**
     * Says that this process has a waiter on {@code topic} (a channel's releases, or one object's:
     * {@link Notifications#anotherProcessWaits}) for at least {@code wait} more, so that
     * releases in other processes notify it (on PostgreSQL they send no note while no other process
     * waits); true if it said so just now — a release that committed before it did not notify, so
     * the waiter looks again before it waits. Said once per {@link Notifications#ANNOUNCED_SLACK} at
     * most while waiters keep waiting briefly, once for a long wait; never where nothing notifies.
     */
    public boolean announce(String topic, Duration wait) {
        if (!notifications.mustAnnounceWaiting(topic, wait)) {
            return false; // the common case, without the lock
        }
        synchronized (notifications.announcing(topic)) {
            if (!notifications.mustAnnounceWaiting(topic, wait)) {
                return false;
            }
            database.alone(() -> "announcing a waiter on " + topic, session -> {
                notifications.announceWaiting(session, topic, wait);
                return null;
            });
            return true;
        }
    }

    /**
     * Takes back what this process said of its waiters on {@code topic} ({@link #announce}) if
     * it said they wait seconds more and {@code nobodyWaits} still holds: a waiter that got the lock
     * or gave up otherwise left its word standing, and releases elsewhere notified it, and handed it
     * turns, until its last wait ran out. Runs even on an interrupted thread (a caller that gave up).
     * What was said is forgotten before {@code nobodyWaits} is asked: a waiter that came after the
     * question says it again (under the same lock), one that came before it is seen by it.
     */
    public void withdraw(String topic, BooleanSupplier nobodyWaits) {
        if (!notifications.mustWithdrawWaiting(topic)) {
            return; // the common case, without the lock: a brief wait's word lapses soon
        }
        boolean interrupted = Thread.interrupted();
        try {
            synchronized (notifications.announcing(topic)) {
                if (!notifications.mustWithdrawWaiting(topic)) {
                    return;
                }
                notifications.forgetAnnounced(topic);
                if (nobodyWaits.getAsBoolean()) {
                    database.alone(() -> "withdrawing a waiter on " + topic, session -> {
                        notifications.withdrawWaiting(session, topic);
                        return null;
                    });
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
