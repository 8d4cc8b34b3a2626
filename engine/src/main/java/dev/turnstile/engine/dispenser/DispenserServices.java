package dev.turnstile.engine.dispenser;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.ObjectMapper;
import com.github.benmanes.caffeine.cache.Cache;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.PropertyDefinition;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.PropertyType;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.dispenser.Dispenser;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.DispenserStrategy;
import dev.turnstile.api.dispenser.Dispensers;
import dev.turnstile.api.dispenser.DispensersConfig;
import dev.turnstile.api.dispenser.ResetPeriod;
import dev.turnstile.api.retry.RetryPolicies;
import dev.turnstile.api.retry.RetryPolicy;
import dev.turnstile.engine.db.Caches;
import dev.turnstile.engine.db.Database;
import dev.turnstile.engine.objects.ObjectStoreServices;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What every session's dispensers share in one engine: the dispenser class and its register
 * preprocessor (set up once at open), the configured dispensers, and the dispenser instances by
 * (name, user, settings) so that a strategy's remembered state and combining queue live as long as
 * the engine.
 */
public final class DispenserServices {
    private static final Logger log = LoggerFactory.getLogger(DispenserServices.class);
    /** The entities this capability maps. */
    public static final List<Class<?>> ENTITIES = List.of(IssueRecord.class, RequestRecord.class);
    static final String SYSTEM_USER = "turnstile";

    final ObjectStoreServices objects;
    final Database database;
    /** Takes as one statement where the database allows (PostgreSQL). */
    final DispenserStatements statements;
    final RetryPolicies retryPolicies;
    final String adminRole;
    private final Map<String, DispenserConfig> configured;
    /**
     * Dispenser instances by name, user and settings, so a caller's repeated {@code get} costs no
     * fetch. Bounded: a workflow engine that calls as one user per workflow instance would
     * otherwise grow it forever; an evicted instance is made again with one fetch.
     */
    private final Cache<String, DefaultDispenser> instances = Caches.builder().maximumSize(INSTANCE_CACHE_SIZE).build();
    /** Dispenser and strategy pairs this engine has said it takes by another strategy than the stored one. */
    private final Set<String> mixedStrategies = ConcurrentHashMap.newKeySet();
    static final int INSTANCE_CACHE_SIZE = 10_000;
    private final Map<String, LocalTurn> localTurns = new ConcurrentHashMap<>();
    private final Map<String, Combining> combiners = new ConcurrentHashMap<>();
    private final Map<String, OptimisticBlocks> optimisticBlocks = new ConcurrentHashMap<>();
    private final Set<String> numbering = ConcurrentHashMap.newKeySet();
    /** What the metrics report. */
    public final DispenserCounts counts = new DispenserCounts();
    /** Clears the in-doubt mark of numbers whose callers have them. */
    final Confirmations confirmations;

    public DispenserServices(ObjectStoreServices objects, Database database, RetryPolicies retryPolicies,
                             DispensersConfig settings) {
        this.objects = objects;
        this.database = database;
        this.statements = DispenserStatements.of(objects, database);
        this.confirmations = new Confirmations(database);
        this.retryPolicies = retryPolicies;
        this.configured = settings.series();
        this.adminRole = settings.adminRole();
        objects.protectClass(Dispenser.CLASS_NAME, "dispenser service (engine.dispensers())", adminRole);
        ObjectStore system = objects.engineStore(SYSTEM_USER);
        defineClass(system);
        // The period first (it may restart the counter), then the register rows for what was issued. Only
        // takes and admin actions of series that reset or register need them: a lock, an unlock, a take of
        // any other series commits by itself.
        objects.addUpdatePreprocessor(Dispenser.CLASS_NAME, Series::needsTransaction, change -> {
            Series.settle(change);
            Register.record(change);
        });
        configured.forEach((name, config) -> create(system, SYSTEM_USER, name, config));
    }

    private static void defineClass(ObjectStore os) {
        os.defineClass(Dispenser.CLASS_NAME, c -> c
                .property(new PropertyDefinition(Series.NAME, PropertyType.STRING, true, null, 64))
                .required(Series.COUNTER, PropertyType.INT64)
                .required(Series.START, PropertyType.INT64)
                .property(new PropertyDefinition(Series.PERIOD, PropertyType.STRING, true, null, 16))
                .property(new PropertyDefinition(Series.RESET, PropertyType.STRING, true, null, 16))
                .string(Series.FORMAT, 200)
                .bool(Series.REGISTER)
                .string(Series.ADMIN_ACTION, 400)
                .string(Series.STRATEGY, 32));
    }

    public Dispensers dispensers(String user, Set<String> roles) {
        return new DefaultDispensers(this, user, roles.contains(adminRole));
    }

    /** One fair in-JVM queue per dispenser, shared by every session of this engine. */
    LocalTurn localTurn(String name) {
        return localTurns.computeIfAbsent(name, n -> new LocalTurn());
    }

    /** Whether {@code numberOnCreate} for this class and property is new in this engine (installing it twice would take two numbers). */
    boolean firstNumbering(String className, String propertyName) {
        return numbering.add(className + '\u0000' + propertyName);
    }

    /** One combiner per dispenser and strategy in this engine, so that all its callers of that strategy share blocks. */
    Combining combiner(String name, DispenserStrategy strategy, RetryPolicy policy) {
        return combiners.computeIfAbsent(name + '\u0000' + strategy, n -> new Combining(idOf(name), policy));
    }

    /** The COMBINING leaders' way to take a block, one per dispenser in this engine, saving as the system user. */
    OptimisticBlocks optimisticBlocks(String name, RetryPolicy policy) {
        return optimisticBlocks.computeIfAbsent(name, n -> new OptimisticBlocks(objects.engineStore(SYSTEM_USER), idOf(n),
                policy, new Pessimistic(objects, statements, SYSTEM_USER, n, idOf(n), policy), counts.conflictsOf(DispenserStrategy.COMBINING)));
    }

    Set<String> configuredNames() {
        return configured.keySet();
    }

    /** Every dispenser object's name, sorted: read from the rows, so created-since ones count too. */
    List<String> names() {
        List<String> values = database.inTransaction(() -> "listing dispensers", session ->
                session.createNativeQuery("SELECT prop_values FROM ts_object WHERE class_name = :c", String.class)
                        .setParameter("c", Dispenser.CLASS_NAME).getResultList());
        List<String> names = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        for (String row : values) {
            try {
                names.add(json.readTree(row).path(Series.NAME).asString());
            } catch (JacksonException e) {
                throw EngineRuntimeException.of(ExceptionCode.E_DATABASE_UNAVAILABLE, "A dispenser row holds values that are not"
                        + " JSON: " + e.getOriginalMessage(), e);
            }
        }
        names.sort(null);
        return names;
    }


    /** Dispenser objects have fixed ids, so every process finds one by name with a single fetch. */
    static UUID idOf(String name) {
        return UUID.nameUUIDFromBytes(("turnstile-dispenser:" + name).getBytes(StandardCharsets.UTF_8));
    }

    static void checkName(String name) {
        if (name == null || !name.matches("[A-Za-z0-9_.-]{1,64}")) {
            throw EngineRuntimeException.badArgument("dispenser name", name, "1 to 64 letters, digits, '.', '_' or '-'");
        }
    }

    /** The dispenser as this user sees it, with this process's strategy settings. */
    Dispenser get(String name, String user, boolean admin, DispenserConfig requested) {
        checkName(name);
        DispenserConfig base = requested != null ? requested : configured.getOrDefault(name, DispenserConfig.ofDefaults());
        // Asked for nothing is its own key: it may take the stored strategy, which equal settings asked for would not.
        String key = name + '\u0000' + user + '\u0000' + admin + '\u0000' + (requested == null ? "(unasked)" : base);
        DefaultDispenser existing = instances.getIfPresent(key);
        if (existing != null) {
            return existing;
        }
        ObjectStore os = objects.engineStore(user);
        CustomObject stored;
        try {
            stored = os.fetchCustomObject(Dispenser.CLASS_NAME, idOf(name), PropertyFilter.ALL);
        } catch (EngineRuntimeException e) {
            if (e.getExceptionCode() == ExceptionCode.E_OBJECT_NOT_FOUND) {
                throw EngineRuntimeException.of(ExceptionCode.E_OBJECT_NOT_FOUND, "The dispenser " + name
                        + " is not defined; create it (admin) or configure it under dispensers.series in turnstile.yaml");
            }
            throw e;
        }
        DispenserStrategy created = createdWith(stored);
        if (requested == null && !configured.containsKey(name) && created != null) {
            base = DispenserConfig.from(base).strategy(created).build();
        } else if (created != null && created != base.strategy() && mixedStrategies.add(name + '\u0000' + base.strategy())) {
            log.info("Dispenser {} was created with strategy {}; this engine takes its numbers with {}, as configured: the series"
                    + " stays gap-free, the strategies contend less well together", name, created, base.strategy());
        }
        DispenserConfig effective = DispenserConfig.from(base)
                .start(stored.getProperties().getInt64Value(Series.START))
                .format(stored.getProperties().getStringValue(Series.FORMAT))
                .reset(ResetPeriod.valueOf(stored.getProperties().getStringValue(Series.RESET)))
                .register(Boolean.TRUE.equals(stored.getProperties().getBooleanValue(Series.REGISTER)))
                .build();
        return instances.get(key, k -> new DefaultDispenser(this, name, user, admin, os, effective));
    }

    /**
     * The configured series checked with the rest of the configuration, before the database is
     * opened: a bad format or an unknown retry policy surfaced at first use, naming no file or key.
     */
    public static void checkConfigured(String source, Map<String, DispenserConfig> series, Set<String> policies) {
        series.forEach((name, config) -> {
            String path = "dispensers.series." + name;
            DispenserFormat.parse(config.format(), config.reset(),
                    (pattern, rule) -> EngineRuntimeException.configInvalid(source, path + ".format", pattern, rule));
            if (config.retryPolicy() != null && !policies.contains(config.retryPolicy())) {
                throw EngineRuntimeException.configInvalid(source, path + ".retryPolicy", config.retryPolicy(),
                        "no such retry policy; known policies are " + policies);
            }
        });
    }

    /**
     * Creates the dispenser object, or checks that the existing one has the same series settings.
     * An existing one is read first, so that opening again writes nothing (an insert refused by the
     * database was a WARN in the host's log and an ERROR in PostgreSQL's, once per series and open).
     */
    Dispenser create(ObjectStore os, String user, String name, DispenserConfig config) {
        checkName(name);
        DispenserFormat.parse(name, config.format(), config.reset());
        UUID id = idOf(name);
        CustomObject stored = stored(os, id);
        if (stored == null) {
            try {
                CustomObject o = os.createCustomObject(Dispenser.CLASS_NAME, id);
                o.getProperties().putValue(Series.NAME, name);
                o.getProperties().putValue(Series.START, config.start());
                o.getProperties().putValue(Series.COUNTER, config.start() - 1);
                o.getProperties().putValue(Series.RESET, config.reset().name());
                o.getProperties().putValue(Series.PERIOD, Series.periodKey(config.reset(), database.now()));
                o.getProperties().putValue(Series.FORMAT, config.format());
                o.getProperties().putValue(Series.REGISTER, config.register());
                o.getProperties().putValue(Series.STRATEGY, config.strategy().name());
                o.save(RefreshMode.REFRESH);
            } catch (EngineRuntimeException e) {
                // Created by another process just now: its series settings must agree.
                stored = stored(os, id);
                if (stored == null) {
                    throw e;
                }
            }
        }
        if (stored != null) {
            checkSameSeries(stored, name, config);
        }
        return get(name, user, true, config);
    }

    private static CustomObject stored(ObjectStore os, UUID id) {
        try {
            return os.fetchCustomObject(Dispenser.CLASS_NAME, id, PropertyFilter.ALL);
        } catch (EngineRuntimeException e) {
            if (e.getExceptionCode() == dev.turnstile.api.ExceptionCode.E_OBJECT_NOT_FOUND) {
                return null;
            }
            throw e;
        }
    }

    /** The strategy stored with the dispenser; null for one created before it was stored. */
    private static DispenserStrategy createdWith(CustomObject stored) {
        String strategy = stored.getProperties().getStringValue(Series.STRATEGY);
        try {
            return strategy == null ? null : DispenserStrategy.valueOf(strategy);
        } catch (IllegalArgumentException newer) {
            return null; // stored by a newer engine: this one takes by its own default
        }
    }

    private static void checkSameSeries(CustomObject stored, String name, DispenserConfig config) {
        var p = stored.getProperties();
        String storedSeries = "start=" + p.getInt64Value(Series.START) + ", format=" + p.getStringValue(Series.FORMAT)
                + ", reset=" + p.getStringValue(Series.RESET) + ", register=" + Boolean.TRUE.equals(p.getBooleanValue(Series.REGISTER));
        String requestedSeries = "start=" + config.start() + ", format=" + config.format() + ", reset=" + config.reset()
                + ", register=" + config.register();
        if (!storedSeries.equals(requestedSeries)) {
            throw EngineRuntimeException.badArgument("dispenser " + name, requestedSeries,
                    "it exists with other series settings: " + storedSeries);
        }
    }

    /**
     * Confirms the numbers this engine's callers have, before the register is read, so that its own
     * report shows no number in doubt that was answered. Not inside the host's transaction (it would
     * take a second connection while the host holds one): there, and if it fails, the timer does.
     */
    void confirmAnswered() {
        if (!database.host().isActive()) {
            try {
                confirmations.flush();
            } catch (RuntimeException e) {
                log.debug("Answered numbers not confirmed before reading the register; the timer goes on", e);
            }
        }
    }

    /** The engine closes: what was answered is confirmed, if the database can still be reached. */
    public void close() {
        confirmations.close();
    }
}
