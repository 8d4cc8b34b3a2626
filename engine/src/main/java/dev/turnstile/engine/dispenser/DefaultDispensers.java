package dev.turnstile.engine.dispenser;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.dispenser.Dispenser;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.DispenserStatistics;
import dev.turnstile.api.dispenser.DispenserStrategy;
import dev.turnstile.api.dispenser.Dispensers;

import java.util.List;
import java.util.Set;

/** One session's dispensers: numbers are registered to its user; admin operations need the admin role. */
final class DefaultDispensers implements Dispensers {
    private final DispenserServices services;
    private final String user;
    private final boolean admin;

    DefaultDispensers(DispenserServices services, String user, boolean admin) {
        this.services = services;
        this.user = user;
        this.admin = admin;
    }

    @Override
    public List<String> names() {
        DefaultDispenser.requireAdmin(admin, user, "list the", "names", services.adminRole);
        return services.names();
    }

    @Override
    public DispenserStatistics statistics(DispenserStrategy strategy) {
        return new DispenserStatistics(services.counts.numbers(strategy), services.counts.conflicts(strategy));
    }

    @Override
    public Dispenser get(String name) {
        return services.get(name, user, admin, null);
    }

    @Override
    public Dispenser get(String name, DispenserConfig config) {
        return services.get(name, user, admin, config);
    }

    @Override
    public Dispenser create(String name, DispenserConfig config) {
        DefaultDispenser.requireAdmin(admin, user, "create", name, services.adminRole);
        if (config == null) {
            throw EngineRuntimeException.badArgument("configuration of dispenser " + name, null, "required");
        }
        return services.create(services.objects.engineStore(user), user, name, config);
    }

    @Override
    public Set<String> configuredNames() {
        return services.configuredNames();
    }
}
