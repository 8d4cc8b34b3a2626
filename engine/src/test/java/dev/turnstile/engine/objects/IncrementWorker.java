package dev.turnstile.engine.objects;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RefreshMode;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * A child process for the multi-process tests: opens its own engine, prints READY, waits for GO on
 * standard input, then increments the Counter of one object {@code count} times (forever if
 * negative) with fetch-modify-save, printing {@code OK <value>} after every committed save and
 * {@code DONE <saves> <conflicts>} at the end.
 */
public final class IncrementWorker {
    public static void main(String[] args) throws Exception {
        EngineConfig config = EngineConfig.builder().jdbcUrl(args[0]).username(args[1]).password(args[2])
                .maxPoolSize(2).build();
        String className = args[3];
        UUID id = UUID.fromString(args[4]);
        int count = Integer.parseInt(args[5]);
        try (ContentEngine engine = ContentEngine.open(config)) {
            ObjectStore os = engine.session("pid" + ProcessHandle.current().pid()).objectStore();
            System.out.println("READY");
            System.out.flush();
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            PropertyFilter counter = PropertyFilter.of("Counter");
            CustomObject o = os.fetchCustomObject(className, id, counter);
            int done = 0;
            int conflicts = 0;
            while (count < 0 || done < count) {
                int next = o.getProperties().getInteger32Value("Counter") + 1;
                o.getProperties().putValue("Counter", next);
                try {
                    o.save(RefreshMode.REFRESH);
                    done++;
                    System.out.println("OK " + next);
                    System.out.flush();
                } catch (EngineRuntimeException e) {
                    if (e.getExceptionCode() != ExceptionCode.E_OBJECT_MODIFIED) {
                        throw e;
                    }
                    conflicts++;
                    o.refresh(counter);
                }
            }
            System.out.println("DONE " + done + " " + conflicts);
        }
    }
}
