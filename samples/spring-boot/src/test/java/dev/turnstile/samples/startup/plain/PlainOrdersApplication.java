package dev.turnstile.samples.startup.plain;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The sample's application without Turnstile (JPA, an entity, a repository, Actuator): the baseline of bench/spring-boot-startup.sh. */
@SpringBootApplication
public class PlainOrdersApplication {
}
