package dev.turnstile.samples;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RefreshMode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.io.PrintStream;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * First writer wins, shown: two sessions fetch one object and both save; the second gets
 * E_OBJECT_MODIFIED and nothing of the first is lost. Then the same as a real race of two threads.
 */
@Command(name = "demo", description = "Two sessions race to save one object; the first writer wins.")
final class DemoCommand implements Callable<Integer> {
    static final String CLASS_NAME = "DemoCounter";

    @Mixin
    EngineOptions engineOptions;

    @Override
    public Integer call() throws Exception {
        try (ContentEngine engine = engineOptions.open()) {
            run(engine, System.out);
        }
        return 0;
    }

    static void run(ContentEngine engine, PrintStream out) throws Exception {
        out.println("Turnstile demo on " + engine.config().jdbcUrl());
        ObjectStore alice = engine.session("alice").objectStore();
        ObjectStore bob = engine.session("bob").objectStore();
        alice.defineClass(CLASS_NAME, c -> c.integer32("Counter").string("Note", 200));

        CustomObject created = alice.createCustomObject(CLASS_NAME);
        created.getProperties().putValue("Counter", 0);
        created.save(RefreshMode.REFRESH);
        UUID id = created.getId();
        out.printf("alice created %s {%s} with Counter = 0, USN %d%n", CLASS_NAME, id, created.getUpdateSequenceNumber());

        out.println();
        out.println("1. Step by step: both fetch, alice saves, bob saves");
        CustomObject a = alice.fetchCustomObject(CLASS_NAME, id, PropertyFilter.ALL);
        CustomObject b = bob.fetchCustomObject(CLASS_NAME, id, PropertyFilter.ALL);
        out.printf("   alice fetched USN %d, bob fetched USN %d%n", a.getUpdateSequenceNumber(), b.getUpdateSequenceNumber());
        a.getProperties().putValue("Counter", 1);
        a.getProperties().putValue("Note", "alice was here");
        a.save(RefreshMode.REFRESH);
        out.printf("   alice saved Counter = 1; USN is now %d%n", a.getUpdateSequenceNumber());
        b.getProperties().putValue("Counter", 1);
        b.getProperties().putValue("Note", "bob was here");
        try {
            b.save(RefreshMode.REFRESH);
            out.println("   bob saved too: THIS MUST NOT HAPPEN");
        } catch (EngineRuntimeException e) {
            out.println("   bob's save was refused: " + e.getMessage());
        }
        b.refresh();
        out.printf("   bob fetched again: Counter = %d, Note = \"%s\", USN %d; nothing of alice's was lost%n",
                b.getProperties().getInteger32Value("Counter"), b.getProperties().getStringValue("Note"),
                b.getUpdateSequenceNumber());

        out.println();
        out.println("2. A real race: two threads fetch, meet at a barrier, then both save");
        CyclicBarrier bothFetched = new CyclicBarrier(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<String> aliceResult = pool.submit(() -> raceOnce(alice, "alice", id, bothFetched));
            Future<String> bobResult = pool.submit(() -> raceOnce(bob, "bob", id, bothFetched));
            out.println("   " + aliceResult.get(30, TimeUnit.SECONDS));
            out.println("   " + bobResult.get(30, TimeUnit.SECONDS));
        } finally {
            pool.shutdownNow();
        }
        CustomObject end = alice.fetchCustomObject(CLASS_NAME, id, PropertyFilter.ALL);
        out.printf("   stored: Counter = %d, Note = \"%s\", USN %d, last modified by %s%n",
                end.getProperties().getInteger32Value("Counter"), end.getProperties().getStringValue("Note"),
                end.getUpdateSequenceNumber(), end.getLastModifier());
    }

    private static String raceOnce(ObjectStore os, String user, UUID id, CyclicBarrier bothFetched) throws Exception {
        CustomObject o = os.fetchCustomObject(CLASS_NAME, id, PropertyFilter.ALL);
        long usn = o.getUpdateSequenceNumber();
        o.getProperties().putValue("Counter", o.getProperties().getInteger32Value("Counter") + 1);
        o.getProperties().putValue("Note", user + " won the race");
        bothFetched.await(10, TimeUnit.SECONDS);
        try {
            o.save(RefreshMode.REFRESH);
            return user + " won: saved with USN " + usn + ", new USN " + o.getUpdateSequenceNumber();
        } catch (EngineRuntimeException e) {
            if (e.getExceptionCode() != ExceptionCode.E_OBJECT_MODIFIED) {
                throw e;
            }
            return user + " lost: requested USN " + e.getRequestedUsn() + ", database USN " + e.getDatabaseUsn();
        }
    }
}
