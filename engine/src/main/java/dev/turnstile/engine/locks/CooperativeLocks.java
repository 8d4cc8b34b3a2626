package dev.turnstile.engine.locks;

import com.github.benmanes.caffeine.cache.Cache;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.engine.db.Caches;
import dev.turnstile.engine.db.Database;
import dev.turnstile.engine.db.Expiry;
import dev.turnstile.engine.db.GuardedWrite;
import dev.turnstile.engine.db.KeyedMutex;
import dev.turnstile.engine.db.Notifications;
import dev.turnstile.engine.db.WakeUps;
import dev.turnstile.engine.objects.LockHook;
import dev.turnstile.engine.objects.LockRules;
import dev.turnstile.engine.objects.LockState;
import dev.turnstile.engine.objects.ObjectState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Cooperative locks as a capability: how this engine's lock requests wait for the holder's unlock
 * — here, or in another process that says so by a note — and how an unlock here passes the lock
 * to a request waiting here ({@link LockPasses}) or hands it over to other processes first
 * ({@link HandOvers}). The rows are the save's to write ({@link LockHook}); this class decides
 * only when a request asks, and what it waits for.
 */
public final class CooperativeLocks implements LockHook {
    private static final Logger log = LoggerFactory.getLogger(CooperativeLocks.class);
    /** The channel on which an unlock (or a delete) tells other processes' waiters the object's id. */
    static final String UNLOCKS = "turnstile_object_unlock";
    /** A note's line for an object deleted (which every waiter must learn), where an unlock's is the id alone. */
    private static final String DELETED = "deleted ";

    private final Database database;
    private final LockCounts counts = new LockCounts();
    /** Locks held by this engine's sessions, by what it wrote ({@link #heldHere}); bounded. */
    private final Cache<UUID, Held> heldHere = Caches.builder().maximumSize(10_000).build();
    /** Lock requests refused here, waiting for the holder's unlock (here, or in another process). */
    private final WakeUps unlockWaiters;
    private final HandOvers handOvers;
    /** Lock requests of this engine waiting for a lock held here, to which its unlock passes it. */
    private final LockPasses passes = new LockPasses(counts);
    /** Lock requests of this engine in flight, by object ({@link #requested}). */
    private final KeyedMutex lockRequests = new KeyedMutex();
    private volatile Rows rows;

    /**
     * What a process waiting for an object's unlock says it waits for: that object, so that unlocks
     * of others do not count it (a note sent and a hand-over to a process that never takes it).
     */
    private static String unlockTopic(Object id) {
        return "unlock " + id;
    }

    /** {@code handOver}: how long an unlock that told other processes lets them go first (zero: not at all). */
    public CooperativeLocks(Database database, Duration handOver) {
        this.database = database;
        this.unlockWaiters = new WakeUps(database.waiting(), CooperativeLocks::unlockTopic);
        this.handOvers = new HandOvers(handOver, unlockWaiters, (className, id) -> rows.read(className, id).usn());
        // Another engine's notes only: this one's unlocks woke its own waiters (and one would end a hand-over's wait).
        database.notifications().listenToOthers(UNLOCKS, note -> {
            if (note.equals(Notifications.EVERYTHING)) {
                handOvers.forgetAll(); // unlocks may have been missed: no turns to count
                unlockWaiters.wakeAll();
            } else {
                note.lines().forEach(line -> {
                    if (line.startsWith(DELETED)) {
                        unlockWaiters.wake(UUID.fromString(line.substring(DELETED.length())));
                    } else {
                        UUID id = UUID.fromString(line);
                        handOvers.turnTaken(id);
                        unlockWaiters.wakeOne(id);
                    }
                });
            }
        });
    }

    @Override
    public void bind(Rows rows) {
        this.rows = rows;
    }

    /** What the metrics report of cooperative locks. */
    public LockCounts counts() {
        return counts;
    }

    @Override
    public List<ObjectState> save(Save save, Supplier<List<ObjectState>> attempt) {
        List<Request> requests = save.requests();
        // A lock passed to this thread's waiting request: the request asked again has it; else it is let go.
        List<ObjectState> states = null;
        LockPasses.Waiting passedHere = passes.takeThisThreads();
        if (passedHere != null) {
            if (requests.size() == 1 && !save.inHost() && passedHere.askedAgainBy(requests.get(0), save.actor())) {
                states = List.of(passedHere.passed());
            } else {
                letGo(passedHere);
            }
        }
        if (states == null) {
            states = requested(save, attempt);
        }
        for (int i = 0; i < requests.size(); i++) {
            UUID id = requests.get(i).id();
            LockRules.Pending action = requests.get(i).action();
            ObjectState state = states.get(i);
            if (save.inHost()) {
                heldHere.invalidate(id); // the host may still roll it back
            } else {
                remember(id, state);
            }
            if (action.locking()) {
                counts.granted(id);
            } else if (action.unlocking() || state == null) {
                // An unlock that passed the lock on (a pass) leaves it held: counted there, nobody to wake.
                boolean passedOn = state != null && state.lock().exists();
                if (action.unlocking() && !passedOn) {
                    counts.released(id);
                    passes.letGo(id);
                }
                if (state == null) {
                    unlockWaiters.wake(id); // deleted: every waiter learns it
                } else if (!passedOn) {
                    unlockWaiters.wakeOne(id); // one of them can have it
                }
            }
        }
        return states;
    }

    /** The save's attempt; a refused lock request waits by its policy, for an unlock to wake it. */
    private List<ObjectState> requested(Save save, Supplier<List<ObjectState>> attempt) {
        List<Request> requests = save.requests();
        List<UUID> locking = requests.stream().filter(r -> r.action().locking()).map(Request::id).toList();
        // Registered before the read, so an unlock between a refusal and the retry's wait still wakes it.
        WakeUps.Ticket ticket = locking.isEmpty() || save.inHost() ? null : unlockWaiters.register(locking);
        Request single = requests.size() == 1 ? requests.get(0) : null;
        if (ticket != null && single != null) {
            // One request for an object's lock at a time from this engine: the next waits for the answer,
            // and after a grant is refused here by what it wrote, not by the database after waiting for
            // the grant's commit and asking again (4 threads on one lock: 0.9x ShedLock's pairs -> 1.7x).
            Supplier<List<ObjectState>> alone = attempt;
            attempt = () -> lockRequests.oneAtATime(single.id(), () -> {
                List<ObjectState> written = alone.get();
                remember(single.id(), written.get(0)); // before the next request here looks
                return written;
            });
            handOvers.await(single, ticket, database.notifications()::startListening);
        }
        List<ObjectState> states;
        try {
            try {
                states = attempt.get();
            } catch (EngineRuntimeException e) {
                // Refused, and this process had not said it waits for an unlock: an unlock elsewhere that
                // committed before it said so sent no note. Said now, one more look finds such an unlock.
                if (e.getExceptionCode() != ExceptionCode.E_OBJECT_LOCKED || ticket == null || !ticket.announce()) {
                    throw e;
                }
                states = attempt.get();
            }
            if (ticket != null) {
                ticket.closeUsed(); // granted: a wake-up it holds is for a lock it now has
                ticket = null;
            }
        } catch (EngineRuntimeException e) {
            // What this engine knew of these objects' locks may be wrong now (an unlock refused, a row gone).
            requests.stream().filter(r -> !r.action().locking()).forEach(r -> heldHere.invalidate(r.id()));
            if (e.getExceptionCode() == ExceptionCode.E_OBJECT_LOCKED && !locking.isEmpty()) {
                counts.refusal();
                // A retry policy's wait after this refusal ends at the holder's unlock, here or elsewhere.
                if (ticket != null && ticket.armFor(e)) {
                    database.notifications().startListening();
                    if (single != null && single.mayBePassed()) {
                        park(single, save.actor(), ticket);
                    }
                }
                ticket = null;
            }
            throw e;
        } finally {
            if (ticket != null) {
                ticket.close();
            }
        }
        return states;
    }

    /**
     * A refused request for a single lock waits, in its policy's wait, for an unlock here to pass the
     * lock on ({@link #claimWaiter}) — held here or, when refused, elsewhere: another thread here may
     * take it first. The policy's next attempt takes a passed lock ({@link #save}); a call that ends
     * without one lets it go.
     */
    private void park(Request request, LockRules.Actor actor, WakeUps.Ticket ticket) {
        passes.park(request, actor, ticket);
        WakeUps.atEndOfCall(passes, () -> {
            LockPasses.Waiting passed = passes.takeThisThreads();
            if (passed != null) {
                letGo(passed);
            }
        });
    }

    @Override
    public void unlockingAlone(UUID id) {
        if (!unlockWaiters.nobodyWaitsFor(id) || passes.inARow(id) > 0) {
            // A request here for this lock is on its way, or likely (the lock came by a pass: the thread that
            // passed it asks again): a moment for it to wait here, to be passed the lock, saves its turn's
            // statement, a note to other processes and a hand-over — a run of passes that ended for want of
            // a waiter a few microseconds late was 4 pairs long, not 8 (docs/BENCHMARKS.md).
            passes.awaitWaiting(id, LockPasses.ON_ITS_WAY_NANOS);
        }
    }

    @Override
    public Waiter claimWaiter(UUID id, Predicate<Waiter> fits) {
        return passes.claim(id, fits);
    }

    /**
     * Lets go of a lock passed to a request that did not ask for it again (its call ended, or asked
     * with another instance): an unlock of the row as the pass left it, telling waiters as any does.
     */
    private void letGo(LockPasses.Waiting w) {
        ObjectState passed = w.passed();
        UUID id = passed.id();
        ObjectState free;
        try {
            free = rows.letGo(passed, w.actor());
        } catch (EngineRuntimeException e) {
            log.warn("Could not let go of the lock on {} {{}} passed to a request that no longer waits; it lapses after {} s",
                    passed.className(), id, passed.lock().timeoutSeconds(), e);
            heldHere.invalidate(id);
            return;
        }
        if (free == null) {
            heldHere.invalidate(id);
            return;
        }
        remember(id, free);
        passes.letGo(id);
        unlockWaiters.wakeOne(id);
    }

    @Override
    public void notifying(GuardedWrite write, UUID id, boolean deleted) {
        write.notifying(database.notifications(), UNLOCKS, unlockTopic(id), deleted ? DELETED + id : id.toString());
    }

    @Override
    public void notified(UUID id, GuardedWrite write, long usnBefore) {
        handOvers.handedOver(id, write.processesNotified(), usnBefore + 1);
    }

    @Override
    public Held heldHere(UUID id, Instant now) {
        Held here = heldHere.getIfPresent(id);
        return here == null || !here.lock().exists() || !Expiry.isHeld(here.expiry(), now) ? null : here;
    }

    /** Keeps {@link #heldHere} as this engine last wrote each object: a lock held, or none. */
    private void remember(UUID id, ObjectState written) {
        if (written == null) {
            heldHere.invalidate(id);
            return;
        }
        LockState lock = written.lock();
        Held now = new Held(written.className(), lock, lock.expiry(written.dateLastModified()), written.usn());
        // Saves of one row here end in any order (an unlock that passed the lock on, its taker's grant): the latest stands.
        heldHere.asMap().merge(id, now, (was, is) -> was.usn() > is.usn() ? was : is);
    }
}
