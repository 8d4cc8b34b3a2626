package dev.turnstile.spring;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.dispenser.DispenserStrategy;
import dev.turnstile.api.dispenser.ResetPeriod;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The auto-configuration on a Spring Boot application's own DataSource and transaction manager. */
class TurnstileAutoConfigurationTest {
    private final ApplicationContextRunner app = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                    JdbcTemplateAutoConfiguration.class,
                    TurnstileAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=jdbc:h2:mem:starter-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
                    // H2 loses updates at READ COMMITTED: Turnstile joins a transaction there only at REPEATABLE READ.
                    "spring.datasource.hikari.transaction-isolation=TRANSACTION_REPEATABLE_READ");

    @Test
    void theEngine_runsOnTheApplicationsDataSource_withTheTurnstileKeysOfTheApplicationsSettings() {
        app.withPropertyValues(
                "turnstile.dispensers.series.invoice.format=INV-{yyyy}-{seq:6}",
                "turnstile.dispensers.series.invoice.reset=yearly",
                "turnstile.dispensers.series.invoice.strategy=PESSIMISTIC",
                "turnstile.treeLocks.lease=45s",
                "turnstile.changes.enabled=true",
                "turnstile.retry.instances.imports.maxAttempts=7",
                "turnstile.retry.instances.imports.retryCodes[0]=E_OBJECT_LOCKED",
                "turnstile.retry.instances.imports.retryCodes[1]=E_DATABASE_UNAVAILABLE"
        ).run(context -> {
            assertThat(context).hasSingleBean(ContentEngine.class);
            ContentEngine engine = context.getBean(ContentEngine.class);
            assertThat(engine.config().dataSource()).isSameAs(context.getBean(javax.sql.DataSource.class));
            assertThat(engine.config().source()).isEqualTo("the Spring environment (turnstile.*)");
            assertThat(engine.config().treeLocks().lease()).isEqualTo(Duration.ofSeconds(45));
            assertThat(engine.config().changes().enabled()).isTrue();
            var invoice = engine.config().dispensers().series().get("invoice");
            assertThat(invoice.reset()).isEqualTo(ResetPeriod.YEARLY);
            assertThat(invoice.strategy()).isEqualTo(DispenserStrategy.PESSIMISTIC);
            assertThat(engine.retryPolicies().get("imports").config().maxAttempts()).isEqualTo(7);
            assertThat(engine.retryPolicies().get("imports").config().retryCodes())
                    .containsExactlyInAnyOrder(ExceptionCode.E_OBJECT_LOCKED, ExceptionCode.E_DATABASE_UNAVAILABLE);
            String first = context.getBean(TransactionTemplate.class).execute(status -> engine.dispensers().get("invoice").nextFormatted());
            assertThat(first).matches("INV-\\d{4}-000001");
        });
    }

    @Test
    void aTypoInAKey_failsTheStart_namingTheKeyAndWhereItCameFrom() {
        app.withPropertyValues("turnstile.treeLocks.leese=45s").run(context -> {
            assertThat(context).hasFailed();
            assertThat(rootCause(context.getStartupFailure())).isInstanceOf(EngineRuntimeException.class)
                    .hasMessage("E_CONFIG_INVALID: the Spring environment (turnstile.*): treeLocks.leese = \"45s\": unknown key;"
                            + " known keys here are [lease, retryPolicy]");
        });
    }

    @Test
    void aPoolOfTheEnginesOwn_isRefused_theApplicationsDataSourceIsTheOne() {
        app.withPropertyValues("turnstile.database.url=jdbc:h2:mem:other").run(context -> {
            assertThat(context).hasFailed();
            assertThat(rootCause(context.getStartupFailure())).hasMessage("E_CONFIG_INVALID: the Spring environment"
                    + " (turnstile.*): database.url = \"jdbc:h2:mem:other\": Turnstile runs on the application's DataSource and joins"
                    + " its transactions: configure the database under spring.datasource.*");
        });
        app.withPropertyValues("turnstile.database.max-pool-size=5").run(context ->
                assertThat(rootCause(context.getStartupFailure())).hasMessageStartingWith("E_CONFIG_INVALID: the Spring environment"
                        + " (turnstile.*): database.maxPoolSize = \"5\": Turnstile runs on the application's DataSource"));
    }

    @Test
    void aNumberTakenInTheApplicationsTransaction_commitsAndRollsBackWithTheApplicationsRow() {
        app.withPropertyValues("turnstile.dispensers.series.orders.format={seq}").run(context -> {
            ContentEngine engine = context.getBean(ContentEngine.class);
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            TransactionTemplate tx = context.getBean(TransactionTemplate.class);
            jdbc.execute("CREATE TABLE orders (number BIGINT PRIMARY KEY, customer VARCHAR(40))");
            for (int i = 1; i <= 10; i++) {
                String customer = "c" + i;
                boolean rollBack = i % 5 == 0;
                tx.executeWithoutResult(status -> {
                    long number = engine.dispensers().get("orders").next();
                    jdbc.update("INSERT INTO orders VALUES (?, ?)", number, customer);
                    if (rollBack) {
                        status.setRollbackOnly();
                    }
                });
            }
            assertThat(jdbc.queryForList("SELECT number FROM orders ORDER BY number", Long.class))
                    .as("committed orders carry 1..N: a rolled-back order's number was never taken")
                    .containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
            assertThat(engine.dispensers().get("orders").register()).extracting(n -> n.number())
                    .containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
        });
    }

    @Test
    void aNumberOrADataWriteOutsideAnyTransaction_isRefused_namingTheThreadAndWhatToAdd_andTakesNothing() {
        app.withPropertyValues("turnstile.dispensers.series.orders.format={seq}").run(context -> {
            ContentEngine engine = context.getBean(ContentEngine.class);
            assertThatThrownBy(() -> engine.dispensers().get("orders").next())
                    .hasMessage("E_HOST_TRANSACTION: Taking 1 number(s) from dispenser orders on thread " + Thread.currentThread().getName()
                            + " outside any Spring transaction: Turnstile would commit it on its own, and if what the application writes"
                            + " next fails, it stays (a number with no invoice). Run it in a transaction — @Transactional on the calling"
                            + " method, called through its Spring proxy (not from the same class) — or set"
                            + " turnstile.spring.allow-own-transactions=true to let Turnstile commit such calls itself.");
            assertThat(engine.dispensers().get("orders").current()).as("nothing taken").isZero();
            ObjectStore os = engine.session("clerk").objectStore();
            os.defineClass("Note", c -> c.integer32("N"));
            CustomObject note = os.createCustomObject("Note");
            assertThatThrownBy(() -> note.save(RefreshMode.REFRESH)).hasMessageStartingWith("E_HOST_TRANSACTION: saving Note {");
            // A cooperative lock is for other processes: it commits at once, in a transaction of its own.
            context.getBean(TransactionTemplate.class).executeWithoutResult(status -> note.save(RefreshMode.REFRESH));
            CustomObject mine = os.fetchCustomObject("Note", note.getId(), PropertyFilter.ALL);
            mine.lock(30, "clerk");
            mine.save(RefreshMode.REFRESH);
            assertThat(mine.isLocked()).isTrue();
            mine.getProperties().putValue("N", 1);
            mine.unlock();
            mine.save(RefreshMode.REFRESH);
            assertThat(os.fetchCustomObject("Note", note.getId(), PropertyFilter.ALL).getProperties().getInteger32Value("N")).isEqualTo(1);
        });
    }

    @Test
    void allowOwnTransactions_letsANumberOutsideAnyTransactionCommitOnItsOwn() {
        app.withPropertyValues("turnstile.dispensers.series.orders.format={seq}", "turnstile.spring.allow-own-transactions=true")
                .run(context -> assertThat(context.getBean(ContentEngine.class).dispensers().get("orders").next()).isEqualTo(1));
    }

    @Test
    void withAnObservationRegistry_eachTakeIsAnObservation() {
        List<String> observed = new java.util.concurrent.CopyOnWriteArrayList<>();
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public void onStop(Observation.Context context) {
                observed.add(context.getName() + " " + context.getLowCardinalityKeyValue("dispenser").getValue());
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }
        });
        app.withBean(ObservationRegistry.class, () -> registry).withPropertyValues("turnstile.dispensers.series.orders.format={seq}")
                .run(context -> {
                    ContentEngine engine = context.getBean(ContentEngine.class);
                    context.getBean(TransactionTemplate.class).executeWithoutResult(status -> engine.dispensers().get("orders").next());
                    assertThat(observed).containsExactly("turnstile.dispenser.take orders");
                });
    }

    @Test
    void theHealthIndicator_isUpWithTheDatabase_andNamesEachDispatcher() {
        app.withPropertyValues("turnstile.changes.enabled=true").run(context -> {
            ContentEngine engine = context.getBean(ContentEngine.class);
            engine.changes().dispatcher(dev.turnstile.api.changes.DispatcherConfig.builder().build());
            Health health = context.getBean(TurnstileHealthIndicator.class).health(true);
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("database", "H2");
            assertThat(health.getDetails().get("dispatchers").toString()).contains("stopped, 0 failed passes in a row");
        });
    }

    private static Throwable rootCause(Throwable t) {
        List<Throwable> seen = new java.util.ArrayList<>();
        while (t.getCause() != null && !seen.contains(t.getCause())) {
            seen.add(t);
            t = t.getCause();
        }
        return t;
    }
}
