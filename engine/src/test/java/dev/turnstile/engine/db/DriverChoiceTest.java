package dev.turnstile.engine.db;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.engine.ChildJvm;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The JDBC drivers are the host's choice: the engine brings none, works with the one the host
 * brings, and refuses a URL whose driver is missing by naming the artifact to add. The hosts here
 * are child JVMs whose class path lacks driver jars.
 */
class DriverChoiceTest {
    private static final Duration STARTUP = Duration.ofSeconds(60);
    private static final String H2 = "h2-";
    private static final String POSTGRESQL = "postgresql-";
    private static final String MARIADB = "mariadb-java-client-";

    private static String open(Set<String> without, String url, String user) throws Exception {
        try (ChildJvm host = ChildJvm.startWithout(without, OpenWorker.class, url, user, "")) {
            String line = host.awaitLine(l -> l.startsWith("RESULT "), STARTUP).substring("RESULT ".length());
            assertThat(host.awaitExit(STARTUP)).isZero();
            return line;
        }
    }

    @Test
    void aHostWithOnlyThePostgresDriver_opensOnPostgres() throws Exception {
        EngineConfig pg = TestDatabases.postgres();
        assertThat(open(Set.of(H2, MARIADB), pg.jdbcUrl(), pg.username())).isEqualTo("OPENED");
    }

    @Test
    void aHostWithoutThePostgresDriver_isToldWhichArtifactToAdd() throws Exception {
        EngineConfig pg = TestDatabases.postgres();
        assertThat(open(Set.of(POSTGRESQL), pg.jdbcUrl(), pg.username())).isEqualTo("E_CONFIG_INVALID: No JDBC driver on the"
                + " classpath accepts database.url " + pg.jdbcUrl() + ": add org.postgresql:postgresql to the application"
                + " (the engine brings no driver)");
    }

    @Test
    void theEmbeddedDefaultWithoutH2_isToldWhichArtifactToAdd() throws Exception {
        assertThat(open(Set.of(H2), "-", "-")).isEqualTo("E_CONFIG_INVALID: No JDBC driver on the classpath accepts"
                + " database.url " + EngineConfig.DEFAULT_JDBC_URL + ": add com.h2database:h2 to the application"
                + " (the engine brings no driver)");
    }

    @Test
    void aUrlNoDriverAccepts_isRefusedAtOpen() {
        assertThatThrownBy(() -> ContentEngine.open(EngineConfig.builder().jdbcUrl("jdbc:nosuchdb://db1/ecm").build()))
                .isInstanceOf(EngineRuntimeException.class)
                .hasMessage("E_CONFIG_INVALID: No JDBC driver on the classpath accepts database.url jdbc:nosuchdb://db1/ecm:"
                        + " add the JDBC driver of that database to the application (the engine brings no driver)");
    }
}
