package dev.turnstile.samples.startup.plain;

import org.springframework.data.jpa.repository.JpaRepository;

public interface PlainOrders extends JpaRepository<PlainOrder, String> {
}
