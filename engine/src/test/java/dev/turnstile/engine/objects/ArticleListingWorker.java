package dev.turnstile.engine.objects;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.Properties;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RefreshMode;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The "take a number" article's listings ported line by line, run by THREADS threads of a child
 * process: {@code LISTING2} (cooperative lock, 10 tries, 100 ms apart), {@code LISTING3} and
 * {@code LISTING3_UNLUCKY} (first writer wins with a remembered USN, with and without
 * feelingUnlucky). After GO each thread calls getNextValue() COUNT times and prints
 * {@code N value usn <usn> <thread> <began>..<ended>us} for every number it got, {@code GAVEUP} when the listing ran out of attempts; then DONE.
 */
public final class ArticleListingWorker {
    private static final String COUNTER_PROPERTY_NAME = "WjcCounter";

    public static void main(String[] args) throws Exception {
        EngineConfig config = EngineConfig.builder().jdbcUrl(args[0]).username(args[1]).password(args[2])
                .maxPoolSize(8).build();
        String className = args[3];
        UUID id = UUID.fromString(args[4]);
        String listing = args[5];
        int threads = Integer.parseInt(args[6]);
        int count = Integer.parseInt(args[7]);
        try (ContentEngine engine = ContentEngine.open(config)) {
            System.out.println("READY");
            System.out.flush();
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<List<String>>> futures = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    ObjectStore os = engine.session("pid" + ProcessHandle.current().pid() + "-" + t).objectStore();
                    futures.add(pool.submit(() -> {
                        List<String> out = new ArrayList<>();
                        WjcDispenser dispenser = new WjcDispenser(os, className, id);
                        for (int i = 0; i < count; i++) {
                            long began = System.nanoTime();
                            try {
                                int n = switch (listing) {
                                    case "LISTING2" -> dispenser.getNextValueWithLock();
                                    case "LISTING3" -> dispenser.getNextValue(false);
                                    case "LISTING3_UNLUCKY" -> dispenser.getNextValue(true);
                                    default -> throw new IllegalArgumentException(listing);
                                };
                                // The USN the save left (listing 3's instance knows it), to tell a
                                // duplicate written twice over one USN from a counter that went back.
                                Long usn = listing.equals("LISTING2") ? null : dispenser.dispenser.getUpdateSequenceNumber();
                                // When the call ran (nanoTime in µs: on Linux one clock for the machine's JVMs).
                                // Two calls of one number, one over before the other began: a commit undone;
                                // overlapping, the database may have let both saves through.
                                out.add("N " + n + " usn " + usn + " " + Thread.currentThread().getName() + " "
                                        + began / 1000 + ".." + System.nanoTime() / 1000 + "us");
                            } catch (GaveUp e) {
                                out.add("GAVEUP");
                            }
                        }
                        return out;
                    }));
                }
                StringBuilder out = new StringBuilder();
                for (Future<List<String>> f : futures) {
                    f.get(10, TimeUnit.MINUTES).forEach(l -> out.append(l).append('\n'));
                }
                System.out.print(out);
            } finally {
                pool.shutdownNow();
            }
            System.out.println("DONE");
        }
    }

    /** The listings' "could not get a number after 10 attempts". */
    static final class GaveUp extends RuntimeException {
        GaveUp() {
            super("no number after 10 attempts", null, false, false);
        }
    }

    /** The article's dispenser class; one per thread, as its objects are not thread-safe. */
    static final class WjcDispenser {
        /** Used to minimise the data returned in fetches and refreshes. */
        private static final PropertyFilter PF_COUNTER = PropertyFilter.of(COUNTER_PROPERTY_NAME);
        private final ObjectStore os;
        private final String className;
        private final UUID id;
        /** Set by the constructor; fetchless instantiation is OK. */
        private final CustomObject dispenser;

        WjcDispenser(ObjectStore os, String className, UUID id) {
            this.os = os;
            this.className = className;
            this.id = id;
            this.dispenser = os.getCustomObject(className, id);
        }

        /**
         * Listing 2: cooperative lock with retry-and-sleep. The article's cost (one round trip to lock
         * and fetch, one to update and unlock) assumes a fetchless instance, so each call gets one.
         */
        int getNextValueWithLock() {
            CustomObject dispenser = os.getCustomObject(className, id);
            final Properties dispenserProperties = dispenser.getProperties();
            for (int attemptNumber = 0; attemptNumber < 10; ++attemptNumber) {
                try {
                    dispenser.lock(15, null); // LOCK the object
                    dispenser.save(RefreshMode.REFRESH); // R/T
                } catch (EngineRuntimeException ere) {
                    ExceptionCode ec = ere.getExceptionCode();
                    if (ec != ExceptionCode.E_OBJECT_LOCKED) {
                        // If we get an exception other than the object already being locked, rethrow it.
                        throw ere;
                    }
                    // already locked; try again after a little sleep
                    try {
                        Thread.sleep(100); // milliseconds
                    } catch (InterruptedException e) { /* don't worry about this rarity */ }
                    continue;
                }
                int oldValue = dispenserProperties.getInteger32Value(COUNTER_PROPERTY_NAME);
                int newValue = oldValue + 1;
                dispenserProperties.putValue(COUNTER_PROPERTY_NAME, newValue);
                dispenser.unlock(); // UNLOCK the object
                dispenser.save(RefreshMode.NO_REFRESH); // R/T
                return newValue;
            }
            throw new GaveUp();
        }

        /** Listing 3: get the next value efficiently by exploiting First Writer Wins. */
        int getNextValue(boolean feelingUnlucky) {
            final Properties dispenserProperties = dispenser.getProperties();
            // Object might be updated by someone else, so try a few times
            for (int attemptNumber = 0; attemptNumber < 10; ++attemptNumber) {
                // If cached data invalid, fetch the current value from the server.
                // This also covers the fetchless instantiation case.
                if (feelingUnlucky
                        || dispenser.getUpdateSequenceNumber() == null
                        || !dispenserProperties.isPropertyPresent(COUNTER_PROPERTY_NAME)) {
                    // fetchProperties will fail if the USN doesn't match, so null it out
                    dispenser.setUpdateSequenceNumber(null);
                    dispenser.fetchProperties(PF_COUNTER); // R/T
                }
                int oldValue = dispenserProperties.getInteger32Value(COUNTER_PROPERTY_NAME);
                int newValue = oldValue + 1;
                dispenserProperties.putValue(COUNTER_PROPERTY_NAME, newValue);
                try {
                    // we want to know the new USN, so refresh
                    dispenser.save(RefreshMode.REFRESH); // R/T
                    return newValue;
                } catch (EngineRuntimeException ere) {
                    ExceptionCode ec = ere.getExceptionCode();
                    if (ec != ExceptionCode.E_OBJECT_MODIFIED) {
                        throw ere;
                    }
                    // someone else updated it; null the USN so the next pass fetches
                    dispenser.setUpdateSequenceNumber(null);
                }
            }
            throw new GaveUp();
        }
    }
}
