package dev.turnstile.engine.dispenser;

import dev.turnstile.api.ChangeContext;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.PropertyDefinition;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.PropertyType;
import dev.turnstile.api.dispenser.Dispenser;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.IssuedNumber;
import dev.turnstile.api.dispenser.NumberBlock;
import dev.turnstile.api.dispenser.RegisterReport;
import dev.turnstile.api.dispenser.ResetPeriod;
import dev.turnstile.api.retry.RetryPolicy;
import dev.turnstile.engine.db.Expiry;
import dev.turnstile.engine.db.Sweep;
import dev.turnstile.engine.objects.ObjectTransaction;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

/** A dispenser as one user of one engine sees it, with this process's strategy. */
final class DefaultDispenser implements Dispenser {
    private final DispenserServices services;
    private final String name;
    private final String user;
    private final boolean admin;
    private final ObjectStore os;
    private final DispenserConfig config;
    private final DispenserFormat format;
    private final UUID id;
    /** The strategy as the observations name it. */
    private final String strategyTag;
    private final Strategy strategy;
    private final RetryPolicy policy;
    /** One keyed call in 64 also deletes up to 500 of the dispenser's expired request keys. */
    private static final Sweep EXPIRED_KEYS = new Sweep("ts_dispenser_request", "dispenser, requested_by, request_key",
            "dispenser = :d AND " + Expiry.in("expires_at").lapsedAt(":now"), 64, 500);
    /**
     * Inside the host's transaction every strategy is the row lock: the counter row stays locked
     * until the host commits (the number is its, gap-free) or rolls back (the number was never taken).
     */
    private final Strategy inHostTransaction;

    DefaultDispenser(DispenserServices services, String name, String user, boolean admin, ObjectStore os,
                     DispenserConfig config) {
        this.services = services;
        this.name = name;
        this.user = user;
        this.admin = admin;
        this.os = os;
        this.config = config;
        this.format = DispenserFormat.parse(name, config.format(), config.reset());
        this.id = DispenserServices.idOf(name);
        this.strategyTag = config.strategy().name().toLowerCase(Locale.ROOT);
        this.policy = services.retryPolicies.get(config.retryPolicy());
        Pessimistic queued = new Pessimistic(services.objects, services.statements, user, name, id, policy);
        this.strategy = switch (config.strategy()) {
            case COOPERATIVE_LOCK -> {
                CooperativeLock lock = new CooperativeLock(os, id, policy, config.lockTimeoutSeconds(), "dispenser " + name,
                        services.counts.conflictsOf(config.strategy()));
                Combining shared = services.combiner(name, config.strategy(), policy);
                yield count -> shared.take(count, user, lock::take);
            }
            case FIRST_WRITER_WINS -> new FirstWriterWins(os, id, policy, config.feelingUnlucky(), queued,
                    services.localTurn(name), services.counts.conflictsOf(config.strategy()));
            case PESSIMISTIC -> queued;
            case COMBINING -> {
                Combining shared = services.combiner(name, config.strategy(), policy);
                OptimisticBlocks blocks = services.optimisticBlocks(name, policy);
                yield count -> shared.take(count, user, block -> blocks.take(block.getAsInt()));
            }
        };
        this.inHostTransaction = queued;
    }

    private NumberBlock take(int count) {
        boolean inHost = services.database.host().isActive();
        Supplier<String> what = () -> "Taking " + count + " number(s) from dispenser " + name;
        if (inHost) {
            services.database.host().claim(id, what);
        } else {
            services.database.host().outside(what);
        }
        NumberBlock taken = services.objects.operations.run("turnstile.dispenser.take", () -> inHost ? inHostTransaction.take(count)
                        : Register.inDoubtWhile(() -> strategy.take(count)), "dispenser", name, "strategy", strategyTag);
        if (!inHost && config.register()) {
            services.confirmations.answered(name, taken.period(), taken.first(), taken.last()); // the caller has them now
        }
        // Counted once they are the caller's for good: in the host's transaction, when it commits.
        services.database.host().afterCommit(() -> services.counts.issued(config.strategy(), count));
        return taken;
    }

    static void requireAdmin(boolean admin, String user, String operation, String dispenser, String role) {
        if (!admin) {
            throw EngineRuntimeException.of(ExceptionCode.E_ACCESS_DENIED, user + " may not " + operation
                    + " dispenser " + dispenser + ": that needs the role " + role);
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public DispenserConfig config() {
        return config;
    }

    @Override
    public long next() {
        return take(1).first();
    }

    @Override
    public NumberBlock next(int count) {
        checkCount(count);
        return take(count);
    }

    private void checkCount(int count) {
        if (count < 1 || count > config.maxBlock()) {
            throw EngineRuntimeException.badArgument("count for dispenser " + name, count,
                    "must be from 1 to " + config.maxBlock());
        }
    }

    @Override
    public NumberBlock next(int count, String requestKey) {
        checkCount(count);
        if (requestKey == null || requestKey.isEmpty() || requestKey.length() > 128
                || requestKey.chars().anyMatch(c -> c < 0x21 || c > 0x7e)) {
            throw EngineRuntimeException.badArgument("request key for dispenser " + name, requestKey,
                    "1 to 128 printable ASCII characters");
        }
        // Retried by the policy like any take: a repeat after a lost answer finds the key and its numbers.
        boolean[] fresh = {false};
        NumberBlock block = policy.call(() -> services.objects.inTransaction(() -> "taking " + count + " number(s) from dispenser " + name
                + " for request " + requestKey, user, tx -> {
            fresh[0] = false;
            // The counter row first: repeats of one key wait here for the first one's commit, then see its row.
            tx.readLocked(Dispenser.CLASS_NAME, id);
            RequestRecord.Key key = new RequestRecord.Key(name, user, requestKey); // the sender's own key
            RequestRecord known = tx.session().get(RequestRecord.class, key);
            Instant now = tx.now();
            if (known != null && Expiry.isHeld(known.expiresAt, now)) {
                if (known.count != count) {
                    throw EngineRuntimeException.badArgument("request key " + requestKey + " of dispenser " + name, count,
                            "it was first sent for " + known.count + " number(s) (" + known.first + ".." + (known.first
                                    + known.count - 1) + "); a repeat must ask for the same count");
                }
                return new NumberBlock(known.first, known.count, known.period, known.issuedOn);
            }
            NumberBlock taken = Pessimistic.take(tx, id, count);
            RequestRecord r = known != null ? known : new RequestRecord(key);
            r.first = taken.first();
            r.count = count;
            r.period = taken.period();
            r.issuedOn = taken.issuedOn();
            r.expiresAt = tx.now().plus(config.requestKeyRetention());
            if (known != null) {
                tx.session().update(r); // an expired key sent again is a new request
            } else {
                tx.session().insert(r);
            }
            // Keys past their retention, now and then: the table holds about a retention's worth of keys.
            EXPIRED_KEYS.nowAndThen(tx.session(), Map.of("d", name, "now", now));
            fresh[0] = true;
            return taken;
        }));
        if (fresh[0]) {
            services.counts.issued(config.strategy(), count); // after the commit: a repeat of a key issues nothing
        }
        return block;
    }

    @Override
    public String nextFormatted() {
        NumberBlock taken = take(1);
        return format(taken, taken.first());
    }

    @Override
    public String format(NumberBlock block, long number) {
        if (!block.contains(number)) {
            throw EngineRuntimeException.badArgument("number to format for dispenser " + name, number,
                    "not in the block " + block.first() + ".." + block.last());
        }
        return format.format(number, block.issuedOn());
    }

    @Override
    public String format(IssuedNumber issued) {
        return format.format(issued.number(), LocalDate.ofInstant(issued.issuedAt(), ZoneOffset.UTC));
    }

    @Override
    public long current() {
        return Series.current(values(), services.database.now());
    }

    private Map<String, Object> values() {
        return os.fetchCustomObject(Dispenser.CLASS_NAME, id, PropertyFilter.ALL).getProperties().toMap();
    }

    @Override
    public void setStart(long next) {
        requireAdmin(admin, user, "set the start of", name, services.adminRole);
        if (next < 0 || next > DispenserConfig.MAX_START) {
            throw EngineRuntimeException.badArgument("next number of dispenser " + name, next, String.format(Locale.ROOT,
                    "must be zero or more, from 0 to %,d", DispenserConfig.MAX_START));
        }
        restart(next, "setStart " + next);
    }

    @Override
    public void reset() {
        requireAdmin(admin, user, "reset", name, services.adminRole);
        restart(config.start(), "reset");
    }

    /** Makes {@code next} the next number of the current period; the register refuses to issue a number twice. */
    private void restart(long next, String action) {
        services.objects.inTransaction(() -> action + " of dispenser " + name, user, tx -> tx.updateLocked(
                Dispenser.CLASS_NAME, id, values -> {
                    long current = Series.current(values, tx.now());
                    if (config.register() && next <= current) {
                        throw EngineRuntimeException.badArgument("next number of dispenser " + name, next,
                                "numbers up to " + current + " are already in the register; a registered series never issues a number twice");
                    }
                    values.put(Series.COUNTER, next - 1);
                    values.put(Series.ADMIN_ACTION, action + " by " + user + " at " + tx.now());
                }));
    }

    @Override
    public void numberOnCreate(String className, String propertyName) {
        PropertyDefinition target = os.getClassDefinition(className).getPropertyDefinition(propertyName)
                .orElseThrow(() -> EngineRuntimeException.propertyNotDefined(className, propertyName));
        if (target.type() != PropertyType.INT64 && target.type() != PropertyType.STRING) {
            throw EngineRuntimeException.badValue(className, null, propertyName, target.type(),
                    "a dispenser numbers Int64 or String properties");
        }
        if (!services.firstNumbering(className, propertyName)) {
            return; // already numbered in this engine
        }
        os.addChangePreprocessor(className, change -> {
            if (change.action() == ChangeContext.Action.CREATE) {
                numberInTransaction(change, propertyName, target.type());
            }
        });
    }

    /** Takes the number in the transaction creating the object: both commit, or neither. */
    private void numberInTransaction(ChangeContext change, String propertyName, PropertyType type) {
        ObjectTransaction tx = ObjectTransaction.of(change).orElseThrow();
        NumberBlock taken = Series.taken(tx.updateLocked(Dispenser.CLASS_NAME, id, values -> Series.take(values, 1)), 1, tx.now());
        long number = taken.first();
        change.properties().putValue(propertyName, type == PropertyType.INT64 ? (Object) number : format(taken, number));
        if (config.register()) {
            Register.linkObject(tx.session(), name, taken.period(), number, change.objectId());
        }
    }

    @Override
    public List<IssuedNumber> register() {
        return registerFrom(0, Integer.MAX_VALUE);
    }

    @Override
    public List<IssuedNumber> register(long fromNumber, int max) {
        checkPage("register page size", max);
        return registerFrom(fromNumber, max);
    }

    private List<IssuedNumber> registerFrom(long fromNumber, int max) {
        services.confirmAnswered();
        String period = Series.currentPeriod(values(), services.database.now());
        return services.objects.inTransaction(() -> "reading the register of " + name, user,
                tx -> Register.list(tx.session(), name, period, fromNumber, max));
    }

    private void checkPage(String what, int max) {
        if (max < 1 || max > MAX_PAGE) {
            throw EngineRuntimeException.badArgument(what + " of dispenser " + name, max, String.format(Locale.ROOT,
                    "from 1 to %,d", MAX_PAGE));
        }
    }

    @Override
    public void voidNumber(long number, String reason) {
        requireAdmin(admin, user, "void numbers of", name, services.adminRole);
        String period = Series.currentPeriod(values(), services.database.now());
        services.objects.inTransaction(() -> "voiding " + number + " of " + name, user, tx -> {
            Register.voidNumber(tx.session(), name, period, number, user, reason);
            return null;
        });
    }

    @Override
    public RegisterReport report() {
        return report(config.start(), REPORT_RANGES);
    }

    @Override
    public RegisterReport report(long fromNumber, int maxRanges) {
        checkPage("report page size", maxRanges);
        services.confirmAnswered();
        Map<String, Object> values = values();
        Instant now = services.database.now();
        String period = Series.currentPeriod(values, now);
        long last = Series.current(values, now);
        return services.objects.inTransaction(() -> "reporting on " + name, user,
                tx -> Register.report(tx.session(), name, period, config.start(), last, fromNumber, maxRanges));
    }

    @Override
    public List<String> periods() {
        return services.objects.inTransaction(() -> "listing the periods of " + name, user, tx -> Register.periods(tx.session(), name));
    }

    @Override
    public List<IssuedNumber> register(String period, long fromNumber, int max) {
        checkPage("register page size", max);
        services.confirmAnswered();
        String asked = period(period, Series.currentPeriod(values(), services.database.now()));
        return services.objects.inTransaction(() -> "reading the register of " + name + " for " + asked, user,
                tx -> Register.list(tx.session(), name, asked, fromNumber, max));
    }

    @Override
    public RegisterReport report(String period, long fromNumber, int maxRanges) {
        checkPage("report page size", maxRanges);
        String current = Series.currentPeriod(values(), services.database.now());
        String asked = period(period, current);
        if (asked.equals(current)) {
            return report(fromNumber, maxRanges);
        }
        services.confirmAnswered();
        return services.objects.inTransaction(() -> "reporting on " + name + " for " + asked, user, tx -> Register.report(tx.session(),
                name, asked, config.start(), Register.highest(tx.session(), name, asked, config.start() - 1), fromNumber, maxRanges));
    }

    /** {@code period}, checked: written as the series' reset writes it, and begun (the current one or earlier). */
    private String period(String period, String current) {
        ResetPeriod reset = config.reset(); // the stored series' reset: no second fetch
        String what = "period of dispenser " + name;
        String form = switch (reset) {
            case NEVER -> "\"\" (the series never resets)";
            case YEARLY -> "a year such as 2026";
            case MONTHLY -> "a month such as 2026-12";
            case DAILY -> "a day such as 2026-12-31";
        };
        if (period == null || !period.matches(switch (reset) {
            case NEVER -> "";
            case YEARLY -> "\\d{4}";
            case MONTHLY -> "\\d{4}-(0[1-9]|1[0-2])";
            case DAILY -> "\\d{4}-\\d{2}-\\d{2}";
        }) || (reset == ResetPeriod.DAILY && !isDay(period))) {
            throw EngineRuntimeException.badArgument(what, period, "a " + reset.name().toLowerCase(Locale.ROOT) + " series' period is " + form);
        }
        if (period.compareTo(current) > 0) {
            throw EngineRuntimeException.badArgument(what, period, "has not begun; the current period is " + current);
        }
        return period;
    }

    private static boolean isDay(String text) {
        try {
            LocalDate.parse(text);
            return true;
        } catch (java.time.format.DateTimeParseException e) {
            return false;
        }
    }

    @Override
    public String toString() {
        return "Dispenser[" + name + ", " + config + "]";
    }
}
