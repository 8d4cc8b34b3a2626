package dev.turnstile.engine.clock;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.changes.ChangesConfig;
import dev.turnstile.api.changes.DispatchReport;
import dev.turnstile.api.changes.DispatcherConfig;
import dev.turnstile.api.editlock.EditResource;
import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreeLocksConfig;
import dev.turnstile.api.treelock.TreePath;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/**
 * A node whose wall clock libfaketime moves (the test steps it, or sets it off by minutes). Commands
 * on standard input, one answer line each:
 * <ul>
 *   <li>{@code WALL seconds}: waits until this process's wall clock is about {@code seconds} off the
 *       monotonic time it started with (libfaketime re-reads its offset each second); {@code WALL ok}</li>
 *   <li>{@code TRY class id path article client}: tries to take what another node holds — the
 *       object's cooperative lock, the tree node, the edit lock, the feed client's lease — and prints
 *       {@code COOP}, {@code TREE}, {@code EDIT}, {@code FEED} each with {@code granted} or {@code refused}</li>
 *   <li>{@code HOLD class id path article}: takes those for itself and keeps them; {@code HELD}</li>
 * </ul>
 */
public final class ClockWorker {
    public static void main(String[] args) throws Exception {
        EngineConfig config = EngineConfig.builder().jdbcUrl(args[0]).username(args[1]).password(args[2]).maxPoolSize(3)
                .treeLocks(TreeLocksConfig.builder().lease(Duration.ofMinutes(5)).build()).changes(ChangesConfig.of(true)).build();
        long startWallMillis = System.currentTimeMillis();
        long startMonoNanos = System.nanoTime();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (ContentEngine engine = ContentEngine.open(config)) {
            String me = "node-" + ProcessHandle.current().pid();
            ObjectStore os = engine.session(me).objectStore();
            if (!args[3].equals("-")) {
                engine.changes().subscribe(args[3], (client, changes) -> { });
            }
            say("READY");
            for (String line; (line = in.readLine()) != null; ) {
                String[] w = line.split(" ");
                switch (w[0]) {
                    case "WALL" -> {
                        long wanted = Long.parseLong(w[1]) * 1000;
                        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                        while (Math.abs(offsetMillis(startWallMillis, startMonoNanos) - wanted) > 60_000) {
                            if (System.nanoTime() > deadline) {
                                throw new IllegalStateException("the wall clock is off by "
                                        + offsetMillis(startWallMillis, startMonoNanos) + " ms, not " + wanted);
                            }
                            Thread.sleep(50); // libfaketime re-reads its file once a second
                        }
                        say("WALL ok " + Instant.now());
                    }
                    case "TRY" -> {
                        CustomObject o = os.getCustomObject(w[1], UUID.fromString(w[2]));
                        o.lock(30, me);
                        say("COOP " + outcome(() -> o.save(RefreshMode.REFRESH), ExceptionCode.E_OBJECT_LOCKED));
                        say("TREE " + (engine.session(me).treeLocks().tryLock(TreeLockRequest.exclusive(TreePath.parse(w[3])))
                                .isPresent() ? "granted" : "refused"));
                        say("EDIT " + (engine.session(me).editLocks().tryLock(EditResource.article("wiki", w[4])).isGranted()
                                ? "granted" : "refused"));
                        DispatchReport served = engine.changes().dispatcher(DispatcherConfig.builder().name(me).build()).runOnce();
                        say("FEED " + (args[3].equals(served.client()) ? "granted" : "refused"));
                    }
                    case "HOLD" -> {
                        CustomObject o = os.getCustomObject(w[1], UUID.fromString(w[2]));
                        o.lock(30, me);
                        o.save(RefreshMode.REFRESH);
                        engine.session(me).treeLocks().tryLock(TreeLockRequest.exclusive(TreePath.parse(w[3]))).orElseThrow();
                        if (!engine.session(me).editLocks().tryLock(EditResource.article("wiki", w[4])).isGranted()) {
                            throw new IllegalStateException("edit lock refused");
                        }
                        say("HELD");
                    }
                    case "EXIT" -> {
                        return;
                    }
                    default -> throw new IllegalArgumentException(line);
                }
            }
        }
    }

    /** How far the wall clock has moved from where the monotonic clock says it should be. */
    private static long offsetMillis(long startWallMillis, long startMonoNanos) {
        long expected = startWallMillis + (System.nanoTime() - startMonoNanos) / 1_000_000;
        return System.currentTimeMillis() - expected;
    }

    private static String outcome(Runnable attempt, ExceptionCode refusal) {
        try {
            attempt.run();
            return "granted";
        } catch (EngineRuntimeException e) {
            if (e.getExceptionCode() != refusal) {
                throw e;
            }
            return "refused";
        }
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
