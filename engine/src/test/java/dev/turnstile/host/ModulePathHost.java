package dev.turnstile.host;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.dispenser.DispenserConfig;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

/**
 * A host application on the class path with the engine and its libraries on the module path
 * (ModulePathHostTest): reads a configuration file, opens the engine through the plugin API, takes a
 * number and saves an object, then tries to call one of the engine's internal classes.
 * {@code URL DIR}: the database, and a directory for the configuration file.
 */
public final class ModulePathHost {
    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[1], "turnstile.yaml");
        Files.writeString(file, "database:\n  url: \"" + args[0] + "\"\nlocks:\n  breakerRole: boss\ntreeLocks:\n  lease: 45s\n"
                + "dispensers:\n  series:\n    orders:\n      format: \"PO-{seq:5}\"\n");
        EngineConfig config = ContentEngine.readConfig(file);
        try (ContentEngine engine = ContentEngine.open(config)) {
            System.out.println("CONFIG " + config.locks().breakerRole() + " " + config.treeLocks().lease());
            System.out.println("NUMBER " + engine.session("host").dispensers().get("orders").nextFormatted());
            engine.session("admin", Set.of("dispenser-admin")).dispensers().create("other", DispenserConfig.ofDefaults());
            ObjectStore os = engine.session("host").objectStore();
            os.defineClass("Note", c -> c.string("Text"));
            CustomObject note = os.createCustomObject("Note");
            note.getProperties().putValue("Text", "on the module path");
            note.save(RefreshMode.REFRESH);
            System.out.println("SAVED " + os.fetchCustomObject("Note", note.getId(), null).getProperties().getStringValue("Text"));
        }
        try {
            Object h2 = Class.forName("dev.turnstile.engine.db.Sql").getMethod("isH2", String.class).invoke(null, "H2");
            System.out.println("INTERNALS OPEN " + h2);
        } catch (IllegalAccessException e) {
            System.out.println("INTERNALS CLOSED " + e.getMessage());
        }
    }
}
