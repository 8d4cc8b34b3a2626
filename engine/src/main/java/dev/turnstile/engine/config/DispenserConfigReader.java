package dev.turnstile.engine.config;

import dev.turnstile.api.dispenser.DispenserConfig;
import tools.jackson.databind.JsonNode;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** Reads {@code dispensers.series.<name>} entries, each bound into a {@link DispenserConfig} builder (its setters are the keys). */
final class DispenserConfigReader {
    private DispenserConfigReader() {
    }

    static Map<String, DispenserConfig> read(String source, JsonNode series) {
        Map<String, DispenserConfig> out = new LinkedHashMap<>();
        Binding.entries(source, "dispensers.series", series).forEach((name, node) -> {
            String path = "dispensers.series." + name;
            DispenserConfig.Builder b = Binding.bind(source, path, node, DispenserConfig.builder(), Set.of());
            Refusals.at(source, path, node.toString(), () -> out.put(name, b.build()));
        });
        return out;
    }
}
