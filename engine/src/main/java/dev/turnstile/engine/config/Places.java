package dev.turnstile.engine.config;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Where each setting of the files read is: the line of every key path, by file. A configuration
 * error is placed by it wherever it is found — by a reader, by a builder's range check, by the
 * checks an open makes — so that every refusal names the line as well as the file and the key.
 */
public final class Places {
    private final Map<String, Map<String, Integer>> lines = new HashMap<>();

    void add(String source, Map<String, Integer> keyLines) {
        lines.put(source, keyLines);
    }

    /** {@code e} at the line of its key (or of the nearest enclosing key), when it is a configuration error of a file read here. */
    public EngineRuntimeException place(EngineRuntimeException e) {
        Map<String, Integer> of = e.getExceptionCode() == ExceptionCode.E_CONFIG_INVALID && e.getConfigLine() == null
                ? lines.get(e.getConfigSource()) : null;
        for (String path = of == null ? null : e.getConfigKeyPath(); path != null && !path.isEmpty(); path = parent(path)) {
            Integer line = of.get(path);
            if (line != null) {
                return e.atConfigLine(line);
            }
        }
        return e;
    }

    /** Runs {@code work}, placing the configuration error it throws. */
    public <T> T placing(Supplier<T> work) {
        try {
            return work.get();
        } catch (EngineRuntimeException e) {
            throw place(e);
        }
    }

    /** {@code errors}, given each error placed. */
    public Consumer<EngineRuntimeException> placing(Consumer<EngineRuntimeException> errors) {
        return errors == null ? null : e -> errors.accept(place(e));
    }

    private static String parent(String path) {
        int cut = Math.max(path.lastIndexOf('.'), path.lastIndexOf('['));
        return cut > 0 ? path.substring(0, cut) : null;
    }
}
