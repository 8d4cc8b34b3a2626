package dev.turnstile.engine.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.DispenserStrategy;
import dev.turnstile.api.dispenser.ResetPeriod;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Reads {@code dispensers.series.<name>} entries; every key and value is checked, errors name file, key path and value. */
final class DispenserConfigReader {
    static final Set<String> KEYS = Set.of("strategy", "feelingUnlucky", "start", "format", "reset", "retryPolicy",
            "lockTimeoutSeconds", "register", "maxBlock", "requestKeyRetention");

    private DispenserConfigReader() {
    }

    static Map<String, DispenserConfig> read(String source, JsonNode series) {
        Map<String, DispenserConfig> out = new LinkedHashMap<>();
        if (series == null || series.isNull()) {
            return out;
        }
        if (!series.isObject()) {
            throw EngineRuntimeException.configInvalid(source, "dispensers.series", series.toString(), "must be a mapping of dispenser names");
        }
        for (Map.Entry<String, JsonNode> e : series.properties()) {
            String path = "dispensers.series." + e.getKey();
            JsonNode node = e.getValue();
            if (!node.isObject()) {
                throw EngineRuntimeException.configInvalid(source, path, node.toString(), "must be a mapping of keys");
            }
            DispenserConfig.Builder b = DispenserConfig.builder();
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                String key = path + "." + field.getKey();
                String text = field.getValue().asText().trim();
                try {
                    switch (field.getKey()) {
                        case "strategy" -> b.strategy(DispenserStrategy.valueOf(text.toUpperCase(Locale.ROOT)));
                        case "reset" -> b.reset(ResetPeriod.valueOf(text.toUpperCase(Locale.ROOT)));
                        case "feelingUnlucky" -> b.feelingUnlucky(bool(source, key, text));
                        case "register" -> b.register(bool(source, key, text));
                        case "start" -> b.start(Long.parseLong(text));
                        case "lockTimeoutSeconds" -> b.lockTimeoutSeconds(Integer.parseInt(text));
                        case "maxBlock" -> b.maxBlock(Integer.parseInt(text));
                        case "requestKeyRetention" -> b.requestKeyRetention(Durations.parse(text));
                        case "format" -> b.format(EngineConfigFile.text(source, key, field.getValue()));
                        case "retryPolicy" -> b.retryPolicy(EngineConfigFile.text(source, key, field.getValue()));
                        default -> throw EngineRuntimeException.configInvalid(source, key, text,
                                "unknown key; known keys are " + KEYS.stream().sorted().toList());
                    }
                } catch (IllegalArgumentException bad) {
                    String rule = switch (field.getKey()) {
                        case "strategy" -> "must be one of " + Arrays.toString(DispenserStrategy.values());
                        case "reset" -> "must be one of " + Arrays.toString(ResetPeriod.values());
                        case "requestKeyRetention" -> "must be a duration such as 24h or PT24H";
                        default -> "must be a whole number";
                    };
                    throw EngineRuntimeException.configInvalid(source, key, text, rule);
                } catch (EngineRuntimeException bad) {
                    if (bad.getMessage().startsWith("E_CONFIG_INVALID")) {
                        throw bad;
                    }
                    throw EngineRuntimeException.configInvalid(source, key, text, Refusals.ruleOf(bad));
                }
            }
            out.put(e.getKey(), b.build());
        }
        return out;
    }

    private static boolean bool(String source, String key, String text) {
        if (!text.equals("true") && !text.equals("false")) {
            throw EngineRuntimeException.configInvalid(source, key, text, "must be true or false");
        }
        return Boolean.parseBoolean(text);
    }
}
