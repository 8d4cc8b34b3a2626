package dev.turnstile.spring;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.dispenser.Dispenser;
import dev.turnstile.micrometer.TurnstileMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The edges of Spring transactions on PostgreSQL, where a lock wait has no timeout by default: a
 * REQUIRES_NEW take that would wait for its own suspended transaction, and what the meters count.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SpringTransactionEdgesTest {
    private static final String SERVER = System.getenv().getOrDefault("TURNSTILE_PG_URL", "jdbc:postgresql://127.0.0.1:5432/test");
    private static final String USER = System.getenv().getOrDefault("TURNSTILE_PG_USER", "postgres");
    private final String database = "springtx_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private ApplicationContextRunner app;

    @BeforeAll
    void createDatabase() throws SQLException {
        execute("CREATE DATABASE " + database);
        app = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                        TurnstileAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + SERVER.substring(0, SERVER.lastIndexOf('/') + 1) + database,
                        "spring.datasource.username=" + USER, "spring.datasource.password=",
                        "turnstile.dispensers.series.orders.format={seq}");
    }

    @AfterAll
    void dropDatabase() throws SQLException {
        execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
    }

    @Test
    void aRequiresNewTake_fromADispenserTheSuspendedTransactionTookFrom_isRefusedAtOnce_notAWaitForEver() {
        app.run(context -> {
            ContentEngine engine = context.getBean(ContentEngine.class);
            TransactionTemplate outer = context.getBean(TransactionTemplate.class);
            TransactionTemplate inner = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            inner.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
            Dispenser orders = engine.dispensers().get("orders");
            long first = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> outer.execute(status -> {
                long taken = orders.next();
                assertThatThrownBy(() -> inner.execute(s -> orders.next()))
                        .isInstanceOf(EngineRuntimeException.class)
                        .satisfies(e -> assertThat(((EngineRuntimeException) e).getExceptionCode()).isEqualTo(ExceptionCode.E_HOST_TRANSACTION))
                        .hasMessageContaining("would wait for ever: another transaction of this thread, suspended until this one ends,"
                                + " holds the same row since it wrote it (Spring: a REQUIRES_NEW method");
                return taken;
            }), "a REQUIRES_NEW take waiting on its own suspended transaction");
            assertThat(first).isEqualTo(1);
            // The refused take took nothing: the next number follows with no gap.
            Long second = outer.execute(status -> orders.next());
            assertThat(second).isEqualTo(2);
            // Once the outer transaction ended, a REQUIRES_NEW take is an ordinary one.
            Long third = outer.execute(status -> inner.execute(s -> orders.next()));
            assertThat(third).isEqualTo(3);
        });
    }

    @Test
    void aRequiresNewSave_ofAnObjectTheSuspendedTransactionSaved_isRefusedAtOnce_andTheOuterCommits() {
        app.run(context -> {
            ContentEngine engine = context.getBean(ContentEngine.class);
            ObjectStore os = engine.session("clerk").objectStore();
            os.defineClass("EdgeCase", c -> c.integer32("N"));
            CustomObject created = os.createCustomObject("EdgeCase");
            created.getProperties().putValue("N", 0);
            TransactionTemplate outer = context.getBean(TransactionTemplate.class);
            outer.executeWithoutResult(status -> created.save(RefreshMode.REFRESH));
            TransactionTemplate inner = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            inner.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
            assertTimeoutPreemptively(Duration.ofSeconds(60), () -> outer.executeWithoutResult(status -> {
                CustomObject mine = os.fetchCustomObject("EdgeCase", created.getId(), PropertyFilter.ALL);
                mine.getProperties().putValue("N", 1);
                mine.save(RefreshMode.REFRESH);
                assertThatThrownBy(() -> inner.executeWithoutResult(s -> {
                    CustomObject again = os.fetchCustomObject("EdgeCase", created.getId(), PropertyFilter.ALL);
                    again.getProperties().putValue("N", 2);
                    again.save(RefreshMode.REFRESH);
                })).hasMessageStartingWith("E_HOST_TRANSACTION: Saving ").hasMessageContaining("would wait for ever");
            }), "a REQUIRES_NEW save waiting on its own suspended transaction");
            assertThat(os.fetchCustomObject("EdgeCase", created.getId(), PropertyFilter.ALL).getProperties().getInteger32Value("N"))
                    .as("the outer transaction's save committed").isEqualTo(1);
        });
    }

    @Test
    void aTakeWaitingOnAnotherTransaction_endsWithTheHostTransactionsTimeout_notWhenTheOtherLetsGo() {
        app.run(context -> {
            ContentEngine engine = context.getBean(ContentEngine.class);
            TransactionTemplate holder = context.getBean(TransactionTemplate.class);
            TransactionTemplate hurried = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            hurried.setTimeout(2); // @Transactional(timeout = 2)
            Dispenser orders = engine.dispensers().get("orders");
            long before = orders.current();
            CountDownLatch holding = new CountDownLatch(1);
            CountDownLatch letGo = new CountDownLatch(1);
            ExecutorService other = Executors.newSingleThreadExecutor();
            try {
                // Another transaction takes a number and holds the counter's row lock until told.
                Future<Long> held = other.submit(() -> holder.execute(status -> {
                    long n = orders.next();
                    holding.countDown();
                    try {
                        letGo.await(60, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                    return n;
                }));
                assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
                // The row is let go only after the hurried take has its answer: a wait bounded by its
                // own timeout fails; a wait for the holder never ends until the guard's 60 s.
                assertTimeoutPreemptively(Duration.ofSeconds(60), () -> assertThatThrownBy(() -> hurried.execute(s -> orders.next()))
                        .hasMessageStartingWith("E_HOST_TRANSACTION: Taking 1 number(s) from dispenser orders in the host's"
                                + " transaction ran out of time"), "a take bounded by its transaction's 2 s timeout");
                letGo.countDown();
                assertThat(held.get(30, TimeUnit.SECONDS)).isEqualTo(before + 1);
                Long next = holder.execute(status -> orders.next());
                assertThat(next).as("the timed-out take took nothing").isEqualTo(before + 2);
            } finally {
                letGo.countDown();
                other.shutdown();
            }
        });
    }

    @Test
    void theNumbersMeter_countsTheTakesThatCommitted_notTheRolledBackOnes() {
        app.run(context -> {
            ContentEngine engine = context.getBean(ContentEngine.class);
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            new TurnstileMetrics(engine).bindTo(registry);
            double before = registry.get("turnstile.dispenser.numbers").tag("strategy", "combining").functionCounter().count();
            TransactionTemplate tx = context.getBean(TransactionTemplate.class);
            for (int i = 1; i <= 5; i++) {
                boolean rollBack = i % 2 == 0;
                tx.executeWithoutResult(status -> {
                    engine.dispensers().get("orders").next();
                    if (rollBack) {
                        status.setRollbackOnly();
                    }
                });
            }
            assertThat(registry.get("turnstile.dispenser.numbers").tag("strategy", "combining").functionCounter().count() - before)
                    .as("numbers issued to committed transactions (2 of 5 rolled back)").isEqualTo(3);
        });
    }

    private static void execute(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(SERVER, USER, ""); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
