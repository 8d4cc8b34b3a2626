package dev.turnstile.engine.retry;

import dev.turnstile.api.EngineRuntimeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * {@code retry.reload: watch}: reloads the policies when turnstile.yaml or its policy file changes.
 * An editor writes a file in several steps, so a change is acted on once the files have been quiet
 * for {@link #QUIET_MILLIS}; a half-written file that fails to read leaves the policies in force
 * (the reload says why) and the next write is read again.
 */
public final class PolicyFileWatch implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PolicyFileWatch.class);
    static final long QUIET_MILLIS = 200;

    private final WatchService watch;
    private final Thread thread;

    public PolicyFileWatch(DefaultRetryPolicies policies, List<Path> files) {
        Set<Path> watched = files.stream().map(f -> f.toAbsolutePath().normalize()).collect(Collectors.toSet());
        try {
            watch = FileSystems.getDefault().newWatchService();
            for (Path dir : watched.stream().map(Path::getParent).collect(Collectors.toSet())) {
                dir.register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY);
            }
        } catch (IOException e) {
            throw EngineRuntimeException.configInvalid(files.get(0).toString(), "retry.reload", "watch",
                    "cannot watch the files: " + e.getMessage());
        }
        thread = new Thread(() -> run(policies, watched), "turnstile-policy-watch");
        thread.setDaemon(true);
        thread.start();
    }

    private void run(DefaultRetryPolicies policies, Set<Path> watched) {
        try {
            while (true) {
                WatchKey key = watch.take();
                boolean ours = concerns(key, watched);
                // Quiet for a while: the rest of the editor's writes come in the same reload.
                for (WatchKey more; (more = watch.poll(QUIET_MILLIS, TimeUnit.MILLISECONDS)) != null; ) {
                    ours |= concerns(more, watched);
                }
                if (ours) {
                    try {
                        policies.reload();
                    } catch (EngineRuntimeException e) {
                        // logged and told to the listeners by reload(); the policies in force stay
                    }
                }
            }
        } catch (InterruptedException | ClosedWatchServiceException stopped) {
            // the engine closed
        } catch (RuntimeException e) {
            log.error("The retry policy file watch stopped: {}", e.toString());
        }
    }

    private static boolean concerns(WatchKey key, Set<Path> watched) {
        boolean ours = false;
        Path dir = (Path) key.watchable();
        for (WatchEvent<?> event : key.pollEvents()) {
            ours |= event.context() instanceof Path p && watched.contains(dir.resolve(p).toAbsolutePath().normalize());
        }
        key.reset();
        return ours;
    }

    @Override
    public void close() {
        thread.interrupt();
        try {
            watch.close();
        } catch (IOException e) {
            log.debug("closing the policy file watch: {}", e.toString());
        }
    }
}
