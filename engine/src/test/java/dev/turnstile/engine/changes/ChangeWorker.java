package dev.turnstile.engine.changes;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.changes.ChangeDispatcher;
import dev.turnstile.api.changes.ChangesConfig;
import dev.turnstile.api.changes.DispatchReport;
import dev.turnstile.api.changes.DispatcherConfig;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A child process for the multi-process change feed tests. {@code dispatch LOG}: after GO, runs
 * dispatcher passes until STOP, appending "client fromNanos toNanos pid" to LOG for every time it
 * held a client (both instants inside its lease). {@code hang CLIENT}: subscribes CLIENT, dispatches, prints
 * "DELIVERING id,id,..." on its first batch and hangs there, to be killed. {@code stall CLIENT}: reads
 * a batch with a 2 s lease, prints "STALLED" before its call and waits for a line, then goes on and
 * prints "DELIVERING token" if it calls and "DONE delivered=n". {@code save CLASS}: creates an
 * object of CLASS for each SAVE line, printing "SAVED id", until another line.
 */
public final class ChangeWorker {
    public static void main(String[] args) throws Exception {
        EngineConfig config = EngineConfig.builder().jdbcUrl(args[0]).username(args[1]).password(args[2]).maxPoolSize(3)
                .changes(ChangesConfig.of(true)).build();
        String pid = Long.toString(ProcessHandle.current().pid());
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (ContentEngine engine = ContentEngine.open(config)) {
            if (args[3].equals("save")) {
                dev.turnstile.api.ObjectStore os = engine.session("worker-" + pid).objectStore();
                System.out.println("READY");
                System.out.flush();
                while ("SAVE".equals(stdin.readLine())) {
                    dev.turnstile.api.CustomObject o = os.createCustomObject(args[4]);
                    o.save(dev.turnstile.api.RefreshMode.REFRESH);
                    System.out.println("SAVED " + o.getId());
                    System.out.flush();
                }
                return;
            }
            if (args[3].equals("stall")) {
                // Reads a batch, then stalls before the call until told to go on: a pause past its lease.
                engine.changes().subscribe(args[4], (client, changes, token) -> {
                    System.out.println("DELIVERING " + token);
                    System.out.flush();
                });
                DefaultChangeDispatcher d = (DefaultChangeDispatcher) engine.changes().dispatcher(DispatcherConfig.builder()
                        .name("stall-" + pid).lease(java.time.Duration.ofSeconds(2)).build());
                d.beforeCall = () -> {
                    System.out.println("STALLED");
                    System.out.flush();
                    try {
                        stdin.readLine();
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                };
                DispatchReport r = d.runOnce();
                System.out.println("DONE delivered=" + r.delivered());
                System.out.flush();
                return;
            }
            if (args[3].equals("hang")) {
                engine.changes().subscribe(args[4], (client, changes) -> {
                    System.out.println("DELIVERING " + String.join(",", changes.stream()
                            .flatMap(c -> c.changeIds().stream()).map(String::valueOf).toList()));
                    System.out.flush();
                    Thread.sleep(Long.MAX_VALUE);
                });
                ChangeDispatcher d = engine.changes().dispatcher(DispatcherConfig.builder().name("hang-" + pid).build());
                while (true) {
                    d.runOnce();
                    Thread.sleep(20);
                }
            }
            Path log = Path.of(args[4]);
            ChangeDispatcher d = engine.changes().dispatcher(DispatcherConfig.builder().name("d-" + pid).batchSize(20).build());
            ((DefaultChangeDispatcher) d).holdListener = (client, from, to) -> append(log, client + " " + from + " " + to + " " + pid);
            System.out.println("READY");
            System.out.flush();
            stdin.readLine();
            AtomicBoolean stop = new AtomicBoolean();
            Thread watcher = new Thread(() -> {
                try {
                    stdin.readLine();
                } catch (Exception ignored) {
                    // parent gone
                }
                stop.set(true);
            });
            watcher.setDaemon(true);
            watcher.start();
            long served = 0;
            while (!stop.get()) {
                DispatchReport r = d.runOnce();
                if (r.isIdle()) {
                    Thread.sleep(10);
                } else {
                    served++;
                }
            }
            System.out.println("DONE " + served);
        }
    }

    private static void append(Path log, String line) {
        try {
            // One small O_APPEND write per line: atomic on Linux, so lines from processes never interleave.
            Files.writeString(log, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
