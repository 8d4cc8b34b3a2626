package dev.turnstile.samples.startup.plain;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

@Entity
public class PlainOrder {
    @Id
    String number;
}
