package dev.turnstile.engine.treelock;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.treelock.TreeLockHandle;
import dev.turnstile.api.treelock.TreeLockMode;
import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreePath;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Random;

/**
 * A child process for the multi-process tree lock tests. {@code race SITE ROUNDS LOG}: waits for
 * GO, then ROUNDS times locks a random set of nodes of SITE (2 workshops × 3 benches), and appends
 * one line "startNanos endNanos pid request" to LOG, both times taken while holding it.
 * {@code hold SITE}: locks workshop A of SITE, prints "LOCKED expiresAt" and waits to be killed.
 * {@code hand-over SITE}: the same, then at a line from its parent unlocks, prints "RELEASED",
 * and exits at the next line. {@code paused-holder SITE}: locks workshop A, prints "LOCKED expiresAt",
 * and at a line from its parent (sent after it was paused and resumed) renews and releases what it
 * holds, printing "HEARTBEAT OK" or the error code and "UNLOCK true|false"; exits at the next line.
 */
public final class TreeLockWorker {
    public static void main(String[] args) throws Exception {
        EngineConfig config = EngineConfig.builder().jdbcUrl(args[0]).username(args[1]).password(args[2]).maxPoolSize(2).build();
        TreePath site = TreePath.root("site", args[4]);
        String pid = Long.toString(ProcessHandle.current().pid());
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (ContentEngine engine = ContentEngine.open(config)) {
            if (args[3].equals("hand-over")) {
                TreeLockHandle h = engine.session("pid " + pid).treeLocks().lock(java.util.Set.of(site.child("workshop", "A")),
                        Duration.ofSeconds(30));
                System.out.println("LOCKED " + h.expiresAt());
                System.out.flush();
                stdin.readLine();
                h.unlock();
                System.out.println("RELEASED");
                System.out.flush();
                stdin.readLine();
                return;
            }
            if (args[3].equals("paused-holder")) {
                TreeLockHandle h = engine.session("pid " + pid).treeLocks().lock(java.util.Set.of(site.child("workshop", "A")),
                        Duration.ofSeconds(30));
                System.out.println("LOCKED " + h.expiresAt());
                System.out.flush();
                stdin.readLine(); // paused (SIGSTOP) while waiting here, then resumed
                String heartbeat;
                try {
                    h.heartbeat();
                    heartbeat = "OK";
                } catch (dev.turnstile.api.EngineRuntimeException e) {
                    heartbeat = e.getExceptionCode().name();
                }
                System.out.println("HEARTBEAT " + heartbeat);
                System.out.println("UNLOCK " + h.unlock());
                System.out.flush();
                stdin.readLine();
                return;
            }
            if (args[3].equals("hold")) {
                TreeLockHandle h = engine.session("pid " + pid).treeLocks().lock(java.util.Set.of(site.child("workshop", "A")),
                        Duration.ofSeconds(30));
                System.out.println("LOCKED " + h.expiresAt());
                System.out.flush();
                stdin.readLine(); // killed while waiting here
                return;
            }
            int rounds = Integer.parseInt(args[5]);
            Path log = Path.of(args[6]);
            Random random = new Random(Long.parseLong(pid));
            System.out.println("READY");
            System.out.flush();
            stdin.readLine();
            for (int i = 0; i < rounds; i++) {
                TreeLockRequest request = random(site, random);
                try (TreeLockHandle ignored = engine.session("pid " + pid).treeLocks().lock(request, Duration.ofSeconds(60))) {
                    long start = System.nanoTime();
                    Thread.sleep(2 + random.nextInt(5)); // some operations overlap in time, some don't
                    long end = System.nanoTime();
                    Files.writeString(log, start + " " + end + " " + pid + " " + TreeLockStore.encode(request).replace('\n', ';') + "\n",
                            StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
                }
            }
            System.out.println("DONE");
        }
    }

    static TreeLockRequest random(TreePath site, Random random) {
        TreeLockRequest.Builder b = TreeLockRequest.builder();
        int n = 1 + random.nextInt(2);
        for (int i = 0; i < n; i++) {
            int depth = random.nextInt(10);
            TreePath p = depth == 0 ? site : site.child("workshop", random.nextBoolean() ? "A" : "B");
            if (depth >= 3) {
                p = p.child("bench", "" + random.nextInt(3));
            }
            b.node(p, random.nextInt(4) == 0 ? TreeLockMode.SHARED : TreeLockMode.EXCLUSIVE);
        }
        return b.build();
    }
}
