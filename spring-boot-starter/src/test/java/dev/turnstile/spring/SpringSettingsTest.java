package dev.turnstile.spring;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.LockConfig;
import dev.turnstile.api.changes.ChangesConfig;
import dev.turnstile.api.dispenser.DispensersConfig;
import dev.turnstile.api.editlock.EditLocksConfig;
import dev.turnstile.api.treelock.TreeLocksConfig;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.support.SpringFactoriesLoader;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code turnstile.*} bound the Spring way (kebab-case, camelCase, environment variables, YAML),
 * then checked by the engine with the messages turnstile.yaml gets; the metadata IDEs read; the
 * failure analysis Boot prints.
 */
class SpringSettingsTest {
    private final ApplicationContextRunner app = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                    TurnstileAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=jdbc:h2:mem:settings-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");

    @Test
    void kebabCaseKeys_bindAsBootUsersWriteThem() {
        app.withPropertyValues("turnstile.locks.breaker-role=boss", "turnstile.tree-locks.lease=45s",
                "turnstile.retry.instances.imports.max-attempts=7", "turnstile.retry.instances.imports.retry-codes=E_OBJECT_LOCKED,E_DATABASE_UNAVAILABLE",
                "turnstile.dispensers.series.invoice.request-key-retention=2h",
                "turnstile.edit-locks.types.wiki.is-minimum=true", "turnstile.edit-locks.types.wiki.html-tags=p;pre;li").run(context -> {
            ContentEngine engine = context.getBean(ContentEngine.class);
            assertThat(engine.config().locks().breakerRole()).isEqualTo("boss");
            assertThat(engine.config().treeLocks().lease()).isEqualTo(Duration.ofSeconds(45));
            assertThat(engine.retryPolicies().get("imports").config().maxAttempts()).isEqualTo(7);
            assertThat(engine.retryPolicies().get("imports").config().retryCodes()).hasSize(2);
            assertThat(engine.config().dispensers().series().get("invoice").requestKeyRetention()).isEqualTo(Duration.ofHours(2));
            assertThat(engine.config().editLocks().types().get("wiki").isMinimum()).isTrue();
            assertThat(engine.config().editLocks().types().get("wiki").htmlTags()).containsExactly("p", "pre", "li");
        });
    }

    @Test
    void environmentVariables_bindAsSpringMapsThem() {
        Map<String, Object> env = Map.of("TURNSTILE_LOCKS_BREAKERROLE", "boss", "TURNSTILE_TREELOCKS_LEASE", "2m",
                "TURNSTILE_CHANGES_ENABLED", "true");
        app.withInitializer(context -> context.getEnvironment().getPropertySources()
                .addFirst(new SystemEnvironmentPropertySource("test-systemEnvironment", env))).run(context -> {
            ContentEngine engine = context.getBean(ContentEngine.class);
            assertThat(engine.config().locks().breakerRole()).isEqualTo("boss");
            assertThat(engine.config().treeLocks().lease()).isEqualTo(Duration.ofMinutes(2));
            assertThat(engine.config().changes().enabled()).isTrue();
        });
    }

    @Test
    void aBadValue_isRefusedWithTheFilesRule_andNothingOpens() {
        app.withPropertyValues("turnstile.tree-locks.lease=500ms").run(context -> {
            assertThat(context).hasFailed();
            assertThat(engineFailure(context.getStartupFailure())).hasMessage(
                    "E_CONFIG_INVALID: the Spring environment (turnstile.*): treeLocks.lease = \"PT0.5S\": from 1s to 1d");
        });
    }

    @Test
    void anUnknownKebabKey_isRefusedNamingTheKnownKeys() {
        app.withPropertyValues("turnstile.tree-locks.leese=45s").run(context -> {
            assertThat(context).hasFailed();
            assertThat(engineFailure(context.getStartupFailure())).hasMessage("E_CONFIG_INVALID: the Spring environment (turnstile.*):"
                    + " treeLocks.leese = \"45s\": unknown key; known keys here are [lease, retryPolicy]");
        });
        app.withPropertyValues("turnstile.retry.instances.imports.max-atempts=7").run(context ->
                assertThat(engineFailure(context.getStartupFailure())).hasMessage("E_CONFIG_INVALID: the Spring environment (turnstile.*):"
                        + " retry.instances.imports.max-atempts = \"7\": unknown key; known keys here are [baseConfig,"
                        + " enableExponentialBackoff, enableRandomizedWait, exponentialBackoffMultiplier, exponentialMaxWaitDuration,"
                        + " ignoreCodes, ignoreExceptions, maxAttempts, maxTotalWait, randomizedWaitFactor, retryCodes, retryExceptions,"
                        + " waitDuration]"));
    }

    @Test
    void aYamlNumberOrBooleanForATextKey_isRefused_asTurnstileYamlRefusesIt() throws IOException {
        // Boot reads application.yaml as YAML 1.1: 0123 is the number 83 and on is true before any binder sees them.
        for (String written : List.of("0123", "on")) {
            List<PropertySource<?>> yaml = new YamlPropertySourceLoader().load("application.yaml",
                    new ByteArrayResource(("turnstile:\n  locks:\n    breaker-role: " + written + "\n").getBytes(StandardCharsets.UTF_8)));
            app.withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(yaml.get(0))).run(context ->
                    assertThat(engineFailure(context.getStartupFailure())).hasMessage("E_CONFIG_INVALID: the Spring environment"
                            + " (turnstile.*): locks.breakerRole = " + (written.equals("on") ? "true [Boolean]" : "83 [Integer]")
                            + ": must be text, and YAML reads this unquoted value as the " + (written.equals("on") ? "boolean true" : "number 83")
                            + ": put it in quotes"));
        }
    }

    @Test
    void aFailedStart_isAnalysedAsBootReportsIt_namingTheProperty() {
        app.withPropertyValues("turnstile.tree-locks.lease=500ms").run(context -> {
            // Ours, found as Boot finds every analyzer (some of Boot's need a bean factory: skipped here).
            List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation()
                    .load(FailureAnalyzer.class, null, SpringFactoriesLoader.FailureHandler.handleMessage((message, e) -> { }));
            FailureAnalysis analysis = analyzers.stream().filter(TurnstileFailureAnalyzer.class::isInstance).findFirst().orElseThrow()
                    .analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).isEqualTo("Turnstile could not start: E_CONFIG_INVALID: the Spring environment"
                    + " (turnstile.*): treeLocks.lease = \"PT0.5S\": from 1s to 1d");
            assertThat(analysis.getAction()).startsWith("Correct turnstile.treeLocks.lease (application.yaml or properties, a profile,"
                    + " or a TURNSTILE_… environment variable)");
        });
    }

    @Test
    void theMetadata_listsEveryKeyWithItsDescription_andTheDefaultsAreTheEnginesOwn() throws IOException {
        String metadata;
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("the starter's spring-configuration-metadata.json").isNotNull();
            metadata = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(metadata).contains("\"name\": \"turnstile.locks.breaker-role\"", "\"name\": \"turnstile.tree-locks.lease\"",
                "\"name\": \"turnstile.retry.instances\"", "\"name\": \"turnstile.dispensers.series\"",
                "\"description\": \"The role that lets a session unlock objects other users locked\"");
        // The defaults the metadata shows (@DefaultValue) are the engine's own.
        TurnstileProperties defaults = new Binder(List.of()).bindOrCreate("turnstile", TurnstileProperties.class);
        assertThat(defaults.locks().breakerRole()).isEqualTo(LockConfig.DEFAULT_BREAKER_ROLE);
        assertThat(defaults.locks().handOver()).isEqualTo(LockConfig.DEFAULT_HAND_OVER);
        assertThat(defaults.dispensers().adminRole()).isEqualTo(DispensersConfig.DEFAULT_ADMIN_ROLE);
        assertThat(defaults.treeLocks().lease()).isEqualTo(TreeLocksConfig.DEFAULT_LEASE);
        assertThat(defaults.treeLocks().retryPolicy()).isEqualTo(TreeLocksConfig.DEFAULT_RETRY_POLICY);
        assertThat(defaults.changes().enabled()).isEqualTo(ChangesConfig.ofDefaults().enabled());
        assertThat(defaults.editLocks().auditRetention()).isEqualTo(EditLocksConfig.DEFAULT_AUDIT_RETENTION);
        assertThat(defaults.database().migrate()).isEqualTo(EngineConfig.ofDefaults().migrate());
        assertThat(defaults.database().severalGaleraWriters()).isEqualTo(EngineConfig.ofDefaults().severalGaleraWriters());
        assertThat(defaults.spring().allowOwnTransactions()).isFalse();
    }

    private static Throwable engineFailure(Throwable t) {
        while (t != null && !(t instanceof EngineRuntimeException)) {
            t = t.getCause();
        }
        assertThat(t).as("an EngineRuntimeException in the start-up failure's causes").isNotNull();
        return t;
    }
}
