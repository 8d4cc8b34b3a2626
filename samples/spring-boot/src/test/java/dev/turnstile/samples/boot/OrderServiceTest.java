package dev.turnstile.samples.boot;

import dev.turnstile.api.ContentEngine;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Duration;
import java.time.Year;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@SpringBootTest(properties = "spring.datasource.url=jdbc:h2:mem:orders-test;DB_CLOSE_DELAY=-1")
class OrderServiceTest {
    @Autowired
    OrderService service;
    @Autowired
    PurchaseOrders orders;
    @Autowired
    ContentEngine engine;
    @Autowired
    HealthEndpoint health;
    @Autowired
    MeterRegistry meters;

    @Test
    void anOrderAndItsNumber_commitTogether_andARefusedOrderLeavesNoGap() {
        List<String> placed = new ArrayList<>();
        for (String customer : List.of("acme", "fraud-1", "globex", "initech", "fraud-2", "umbrella")) {
            try {
                placed.add(service.place(customer).getNumber());
            } catch (IllegalStateException refused) {
                assertThat(refused).hasMessageContaining("refused for " + customer);
            }
        }
        String year = Year.now().toString();
        assertThat(placed).containsExactly("PO-" + year + "-00001", "PO-" + year + "-00002", "PO-" + year + "-00003",
                "PO-" + year + "-00004");
        assertThat(orders.findAll()).extracting(PurchaseOrder::getNumber).containsExactlyInAnyOrderElementsOf(placed);
        assertThat(engine.dispensers().get("orders").register()).extracting(n -> n.number()).containsExactly(1L, 2L, 3L, 4L);
        assertThat(meters.get("turnstile.dispenser.numbers").tag("strategy", "combining").functionCounter().count())
                .as("numbers issued to committed orders: the refused orders' numbers went back, uncounted").isEqualTo(4);
    }

    @Test
    void settings_fromApplicationYamlInKebabCase_andFromTheEnvironment() {
        assertThat(engine.config().locks().breakerRole()).isEqualTo("order-desk-supervisor");
        assertThat(engine.config().dispensers().series().get("orders").requestKeyRetention()).isEqualTo(Duration.ofHours(2));
        assertThat(engine.config().dispensers().adminRole()).as("TURNSTILE_DISPENSERS_ADMINROLE (the pom's surefire setting)")
                .isEqualTo("order-admins");
    }

    @Test
    void badInputBeforeNumbering_changesNothing() {
        long before = orders.count();
        assertThatThrownBy(() -> service.place(" ")).hasMessage("customer: required");
        assertThat(orders.count()).isEqualTo(before);
    }

    @Autowired
    TransactionTemplate transactions;

    @Test
    void aNumberTakenWithoutATransaction_failsLoudly_andTakesNothing() {
        long before = engine.dispensers().get("orders").current();
        // A missing @Transactional (or a call from the same class, past Spring's proxy) ends here.
        assertThatThrownBy(() -> engine.dispensers().get("orders").next())
                .hasMessageStartingWith("E_HOST_TRANSACTION: Taking 1 number(s) from dispenser orders on thread ")
                .hasMessageContaining("outside any Spring transaction");
        assertThat(engine.dispensers().get("orders").current()).isEqualTo(before);
    }

    @Test
    void aRequiresNewTakeInsideATransactionThatTookANumber_failsLoudly_insteadOfWaitingForItself() {
        long before = engine.dispensers().get("orders").current();
        TransactionTemplate requiresNew = new TransactionTemplate(transactions.getTransactionManager());
        requiresNew.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        transactions.executeWithoutResult(status -> {
            engine.dispensers().get("orders").next();
            assertThatThrownBy(() -> requiresNew.executeWithoutResult(inner -> engine.dispensers().get("orders").next()))
                    .hasMessageStartingWith("E_HOST_TRANSACTION: Taking 1 number(s) from dispenser orders would wait for ever");
            status.setRollbackOnly(); // and the outer number goes back
        });
        assertThat(engine.dispensers().get("orders").current()).isEqualTo(before);
    }

    @Test
    void actuatorHealth_showsTurnstileUp() {
        var turnstile = health.healthForPath("turnstile");
        assertThat(turnstile).isNotNull();
        assertThat(turnstile.getStatus().getCode()).isEqualTo("UP");
    }
}
