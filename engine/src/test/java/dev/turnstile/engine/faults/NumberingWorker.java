package dev.turnstile.engine.faults;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.dispenser.Dispenser;
import dev.turnstile.engine.ChildJvm;
import org.awaitility.Awaitility;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A process that takes numbers until told to stop, for the partition tests: THREADS threads take
 * from DISPENSER one at a time and print each number they got ("N 17") or the code of each failure
 * ("E E_DATABASE_UNAVAILABLE"), until a line STOP; then "STOPPED". Arguments: URL USER PASSWORD
 * DISPENSER THREADS IDLE_TRANSACTION_TIMEOUT.
 */
public final class NumberingWorker {
    /** The numbers a worker printed, in the order its lines came. */
    static List<Long> numbers(List<String> lines) {
        return lines.stream().filter(l -> l.startsWith("N ")).map(l -> Long.parseLong(l.substring(2))).toList();
    }

    /** Waits until {@code worker} has printed at least {@code count} numbers. */
    static void awaitNumbers(ChildJvm worker, int count, Duration atMost) {
        Awaitility.await().atMost(atMost).until(() -> numbers(worker.lines()).size() >= count);
    }

    public static void main(String[] args) throws Exception {
        EngineConfig config = EngineConfig.builder().jdbcUrl(args[0]).username(args[1]).password(args[2]).maxPoolSize(4)
                .idleTransactionTimeout(Duration.parse(args[5])).build();
        int threads = Integer.parseInt(args[4]);
        try (ContentEngine engine = ContentEngine.open(config)) {
            Dispenser d = engine.session("cut-off").dispensers().get(args[3]);
            List<Thread> takers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread taker = new Thread(() -> {
                    while (!Thread.currentThread().isInterrupted()) {
                        try {
                            long n = d.next();
                            System.out.println("N " + n);
                        } catch (EngineRuntimeException e) {
                            System.out.println("E " + e.getExceptionCode());
                        }
                    }
                }, "taker-" + t);
                taker.start();
                takers.add(taker);
            }
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine(); // STOP
            takers.forEach(Thread::interrupt);
            for (Thread taker : takers) {
                taker.join(Duration.ofMinutes(2).toMillis());
            }
        }
        System.out.println("STOPPED");
        System.out.flush();
    }
}
