package dev.turnstile.engine;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.Session;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.DispensersConfig;

import java.nio.file.Path;
import java.util.Set;
import java.util.UUID;

/**
 * What a child JVM loads, done once so that {@link ChildClassArchive} archives it: an engine opened
 * on an embedded H2 file in {@code args[0]} and on PostgreSQL where it runs, an object locked,
 * saved and unlocked, a number taken; the other drivers loaded. A class it misses loads as before.
 */
public final class ChildClassWarmUp {
    public static void main(String[] args) throws Exception {
        Class.forName("org.postgresql.Driver");
        Class.forName("org.mariadb.jdbc.Driver");
        work(EngineConfig.builder().jdbcUrl("jdbc:h2:file:" + Path.of(args[0], "engine").toAbsolutePath()).build());
        try {
            work(TestDatabases.postgres());
        } catch (RuntimeException notRunning) {
            System.out.println("PostgreSQL's classes not archived: " + notRunning);
        }
    }

    private static void work(EngineConfig config) {
        try (ContentEngine engine = ContentEngine.open(config)) {
            Session admin = engine.session("warm-up", Set.of(DispensersConfig.DEFAULT_ADMIN_ROLE));
            admin.objectStore().defineClass("ChildClassWarmUp", c -> c.int64("N"));
            CustomObject o = admin.objectStore().createCustomObject("ChildClassWarmUp");
            o.save(RefreshMode.REFRESH);
            o.lock(30, "warm-up");
            o.save(RefreshMode.REFRESH);
            o.getProperties().putValue("N", 1L);
            o.unlock();
            o.save(RefreshMode.REFRESH);
            String dispenser = "warm-up-" + UUID.randomUUID();
            admin.dispensers().create(dispenser, DispenserConfig.ofDefaults());
            admin.dispensers().get(dispenser).next();
        }
    }
}
