package dev.turnstile.samples.boot;

import dev.turnstile.api.ContentEngine;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Places an order: its number from the {@code orders} dispenser and its row, in one transaction.
 * If the transaction rolls back, the number was never taken: the series stays gap-free.
 */
@Service
public class OrderService {
    private final ContentEngine engine;
    private final PurchaseOrders orders;

    public OrderService(ContentEngine engine, PurchaseOrders orders) {
        this.engine = engine;
        this.orders = orders;
    }

    // region spring-transactional
    @Transactional
    public PurchaseOrder place(String customer) {
        if (customer.isBlank()) {
            throw new IllegalArgumentException("customer: required");
        }
        String number = engine.dispensers().get("orders").nextFormatted();  // joins this transaction
        PurchaseOrder order = orders.save(new PurchaseOrder(number, customer));
        if (customer.startsWith("fraud")) {
            // Found out after numbering (a check against the saved order, say): the whole transaction goes.
            throw new IllegalStateException("order " + number + " refused for " + customer);  // the number goes back
        }
        return order;
    }
    // endregion
}
