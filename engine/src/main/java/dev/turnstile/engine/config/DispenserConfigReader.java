package dev.turnstile.engine.config;

import dev.turnstile.api.EngineRuntimeException;
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
            try {
                out.put(name, b.build());
            } catch (EngineRuntimeException e) {
                throw EngineRuntimeException.configInvalid(source, path, node.toString(), Refusals.ruleOf(e));
            }
        });
        return out;
    }
}
