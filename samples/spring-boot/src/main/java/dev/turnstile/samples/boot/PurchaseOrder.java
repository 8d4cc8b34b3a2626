package dev.turnstile.samples.boot;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** The application's own entity, in its own table: Turnstile knows nothing of it. */
@Entity
@Table(name = "purchase_order")
public class PurchaseOrder {
    @Id
    @Column(length = 20)
    private String number;

    @Column(nullable = false, length = 80)
    private String customer;

    protected PurchaseOrder() {
    }

    PurchaseOrder(String number, String customer) {
        this.number = number;
        this.customer = customer;
    }

    public String getNumber() {
        return number;
    }

    public String getCustomer() {
        return customer;
    }
}
