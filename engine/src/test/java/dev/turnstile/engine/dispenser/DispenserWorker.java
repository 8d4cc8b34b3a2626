package dev.turnstile.engine.dispenser;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.Document;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.dispenser.Dispenser;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.DispenserStrategy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A child process for the multi-process dispenser tests. {@code take STRATEGY[+unlucky] THREADS COUNT}: after
 * GO, THREADS threads take COUNT numbers in all and print them ("N 17"), then DONE.
 * {@code create CLASS COUNT}: numbers new Documents of CLASS on create (COUNT of them, forever if
 * negative), making every 5th creation fail after it was numbered; prints CREATED after each commit.
 */
public final class DispenserWorker {
    public static void main(String[] args) throws Exception {
        EngineConfig config = EngineConfig.builder().jdbcUrl(args[0]).username(args[1]).password(args[2]).maxPoolSize(6).build();
        String dispenser = args[3];
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (ContentEngine engine = ContentEngine.open(config)) {
            if (args[4].equals("take")) {
                boolean unlucky = args[5].endsWith("+unlucky");
                DispenserStrategy strategy = DispenserStrategy.valueOf(args[5].replace("+unlucky", ""));
                int threads = Integer.parseInt(args[6]);
                int count = Integer.parseInt(args[7]);
                Dispenser d = engine.session("pid" + ProcessHandle.current().pid()).dispensers()
                        .get(dispenser, DispenserConfig.builder().strategy(strategy).feelingUnlucky(unlucky).build());
                System.out.println("READY");
                System.out.flush();
                stdin.readLine();
                take(d, threads, count);
            } else {
                create(engine, dispenser, args[5], Integer.parseInt(args[6]));
            }
            System.out.println("DONE");
        }
    }

    private static void take(Dispenser d, int threads, int count) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<List<Long>>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    List<Long> mine = new ArrayList<>();
                    for (int i = 0; i < count / threads; i++) {
                        mine.add(d.next());
                    }
                    return mine;
                }));
            }
            StringBuilder out = new StringBuilder();
            for (Future<List<Long>> f : futures) {
                f.get(10, TimeUnit.MINUTES).forEach(n -> out.append("N ").append(n).append('\n'));
            }
            System.out.print(out);
        } finally {
            pool.shutdownNow();
        }
    }

    private static void create(ContentEngine engine, String dispenser, String className, int count) {
        ObjectStore os = engine.session("creator" + ProcessHandle.current().pid()).objectStore();
        engine.dispensers().get(dispenser).numberOnCreate(className, "InvoiceNumber");
        os.addChangePreprocessor(className, change -> {
            if (Boolean.TRUE.equals(change.properties().getBooleanValue("Fail"))) {
                throw new IllegalStateException("this creation fails after it was numbered");
            }
        });
        System.out.println("READY");
        System.out.flush();
        for (int i = 1; count < 0 || i <= count; i++) {
            Document doc = os.createDocument(className);
            doc.getProperties().putValue("Fail", i % 5 == 0);
            try {
                doc.save(RefreshMode.REFRESH);
                System.out.println("CREATED " + doc.getProperties().getInt64Value("InvoiceNumber"));
            } catch (EngineRuntimeException expected) {
                System.out.println("FAILED");
            }
            System.out.flush();
        }
    }
}
