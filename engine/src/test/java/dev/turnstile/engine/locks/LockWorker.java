package dev.turnstile.engine.locks;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.UpdatingBatch;
import dev.turnstile.api.retry.Locking;
import dev.turnstile.api.retry.RetryPoliciesConfig;
import dev.turnstile.api.retry.RetryPolicy;
import dev.turnstile.api.retry.RetryPolicyConfig;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.UUID;

/**
 * A child process for the multi-process lock tests. {@code race ROUNDS LOG}: waits for GO, then
 * ROUNDS times takes the lock with retry, appends "START pid" and "END pid" to LOG while holding it,
 * and unlocks. {@code hold SECONDS}: takes the lock, prints LOCKED and waits to be killed.
 * {@code paused-writer SECONDS}: takes the lock, prints LOCKED, and at a line from its parent (sent
 * after it was paused and resumed) writes with what it holds — a save, a batch, an unlock — and
 * prints each outcome: "SAVE …", "BATCH …", "UNLOCK …", each "OK" or the error code.
 * {@code hand-over SECONDS}: takes the lock, prints LOCKED, unlocks on UNLOCK (printing UNLOCKED)
 * and ends on EXIT.
 */
public final class LockWorker {
    public static void main(String[] args) throws Exception {
        EngineConfig config = EngineConfig.builder().jdbcUrl(args[0]).username(args[1]).password(args[2]).maxPoolSize(2)
                .retry(RetryPoliciesConfig.builder().policy("race", RetryPolicyConfig.builder().maxAttempts(1_000_000).waitDuration(Duration.ofMillis(2))
                        .enableRandomizedWait(true).randomizedWaitFactor(0.9).build()).build())
                .build();
        String className = args[3];
        UUID id = UUID.fromString(args[4]);
        String pid = Long.toString(ProcessHandle.current().pid());
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (ContentEngine engine = ContentEngine.open(config)) {
            CustomObject o = engine.session("pid" + pid).objectStore().getCustomObject(className, id);
            if (args[5].equals("hand-over")) {
                o.lock(Integer.parseInt(args[6]), "held by " + pid);
                o.save(RefreshMode.REFRESH);
                System.out.println("LOCKED");
                System.out.flush();
                stdin.readLine(); // UNLOCK
                o.unlock();
                o.save(RefreshMode.REFRESH);
                System.out.println("UNLOCKED");
                System.out.flush();
                stdin.readLine(); // EXIT
                return;
            }
            if (args[5].equals("paused-writer")) {
                o.lock(Integer.parseInt(args[6]), "held by " + pid);
                o.save(RefreshMode.REFRESH);
                System.out.println("LOCKED");
                System.out.flush();
                stdin.readLine(); // paused (SIGSTOP) while waiting here, then resumed
                o.getProperties().putValue("Counter", 999);
                System.out.println("SAVE " + outcome(() -> o.save(RefreshMode.REFRESH)));
                System.out.println("BATCH " + outcome(() -> {
                    UpdatingBatch batch = engine.session("pid" + pid).objectStore().createUpdatingBatch(RefreshMode.REFRESH);
                    batch.add(o, null);
                    batch.updateBatch();
                }));
                System.out.println("UNLOCK " + outcome(() -> {
                    o.unlock();
                    o.save(RefreshMode.REFRESH);
                }));
                System.out.flush();
                stdin.readLine(); // EXIT
                return;
            }
            if (args[5].equals("hold")) {
                o.lock(Integer.parseInt(args[6]), "held by " + pid);
                o.save(RefreshMode.REFRESH);
                System.out.println("LOCKED");
                System.out.flush();
                stdin.readLine(); // killed while waiting here
                return;
            }
            int rounds = Integer.parseInt(args[6]);
            Path log = Path.of(args[7]);
            RetryPolicy policy = engine.retryPolicies().get("race");
            System.out.println("READY");
            System.out.flush();
            stdin.readLine();
            for (int i = 0; i < rounds; i++) {
                Locking.lockWithRetry(o, 60, "race " + pid, policy);
                append(log, "START " + pid);
                append(log, "END " + pid);
                o.unlock();
                o.save(RefreshMode.REFRESH);
            }
            System.out.println("DONE " + policy.metrics().attempts());
        }
    }

    private static String outcome(Runnable write) {
        try {
            write.run();
            return "OK";
        } catch (EngineRuntimeException e) {
            return e.getExceptionCode().name();
        }
    }

    private static void append(Path log, String line) throws Exception {
        // One small O_APPEND write per line: atomic on Linux, so lines from processes never interleave.
        Files.writeString(log, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
    }
}
