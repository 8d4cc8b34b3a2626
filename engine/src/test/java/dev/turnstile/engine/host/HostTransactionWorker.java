package dev.turnstile.engine.host;

import com.zaxxer.hikari.HikariDataSource;
import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.dispenser.Dispenser;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.DispenserStrategy;
import dev.turnstile.spi.JdbcHostTransactions;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A host application in its own process: THREADS threads each run PER_THREAD transactions that
 * insert the host's row numbered by Turnstile on the host's connection, every fifth rolled back.
 * Arguments: URL USER PASSWORD DISPENSER STRATEGY TABLE THREADS PER_THREAD. Prints DONE.
 */
public final class HostTransactionWorker {
    public static void main(String[] args) throws Exception {
        JdbcHostTransactions host = new JdbcHostTransactions();
        int threads = Integer.parseInt(args[6]);
        int perThread = Integer.parseInt(args[7]);
        try (HikariDataSource pool = new HikariDataSource(HostOrders.pool(args[0], args[1], args[2], 8));
             ContentEngine engine = ContentEngine.open(EngineConfig.builder().jdbcUrl(args[0]).username(args[1]).password(args[2])
                     .dataSource(pool).hostTransactions(host).build())) {
            Dispenser d = engine.session("clerk").dispensers().get(args[3],
                    DispenserConfig.builder().strategy(DispenserStrategy.valueOf(args[4])).build());
            ExecutorService workers = Executors.newFixedThreadPool(threads);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(workers.submit(() -> {
                    for (int i = 1; i <= perThread; i++) {
                        HostOrders.order(pool, args[5], d.name(), i % 5 != 0, c -> host.joining(c, d::next));
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(5, TimeUnit.MINUTES);
            }
            workers.shutdown();
        }
        System.out.println("DONE");
    }
}
