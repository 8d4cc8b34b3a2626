package dev.turnstile.spring;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.micrometer.TurnstileMetrics;
import dev.turnstile.micrometer.TurnstileObservations;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.ConfigurableEnvironment;

import javax.sql.DataSource;

/**
 * A {@link ContentEngine} on the application's DataSource, joining the application's Spring
 * transactions ({@link SpringHostTransactions}), configured by {@code turnstile.*} with the keys of
 * turnstile.yaml; and, with Actuator, a {@code turnstile} health indicator and the engine's meters
 * ({@link TurnstileMetrics}); with an {@code ObservationRegistry}, its Observations ({@link TurnstileObservations}).
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
        "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration"})
@ConditionalOnClass(ContentEngine.class)
public class TurnstileAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @ConditionalOnSingleCandidate(DataSource.class)
    public ContentEngine turnstileContentEngine(DataSource dataSource, ConfigurableEnvironment environment) {
        SpringSettings.Read settings = SpringSettings.read(environment);
        return ContentEngine.open(EngineConfig.from(settings.config()).dataSource(dataSource)
                .hostTransactions(new SpringHostTransactions(dataSource, settings.spring().allowOwnTransactions())).build());
    }

    /** Bound to the application's meter registry by Spring Boot (with Actuator), like every MeterBinder bean. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterBinder.class)
    static class Metrics {
        @Bean
        @ConditionalOnMissingBean
        TurnstileMetrics turnstileMetrics(ContentEngine engine) {
            return new TurnstileMetrics(engine);
        }
    }

    /** With an ObservationRegistry (Spring's, or Actuator's), every take, save and dispatch pass is an Observation. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ObservationRegistry.class)
    static class Observations {
        @Bean
        SmartInitializingSingleton turnstileObservations(ContentEngine engine, ObjectProvider<ObservationRegistry> registry) {
            return () -> registry.ifAvailable(r -> TurnstileObservations.observe(engine, r));
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(AbstractHealthIndicator.class)
    @ConditionalOnEnabledHealthIndicator("turnstile")
    static class Health {
        @Bean
        @ConditionalOnMissingBean(name = "turnstileHealthIndicator")
        TurnstileHealthIndicator turnstileHealthIndicator(ContentEngine engine, DataSource dataSource) {
            return new TurnstileHealthIndicator(engine, dataSource);
        }
    }
}
