package dev.turnstile.samples.boot;

import org.springframework.data.jpa.repository.JpaRepository;

public interface PurchaseOrders extends JpaRepository<PurchaseOrder, String> {
}
