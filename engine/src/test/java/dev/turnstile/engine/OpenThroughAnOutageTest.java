package dev.turnstile.engine;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.DispensersConfig;
import dev.turnstile.api.retry.RetryPoliciesConfig;
import dev.turnstile.api.retry.RetryPolicyConfig;
import dev.turnstile.engine.retry.DefaultRetryPolicies;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.lang.reflect.Proxy;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 44: an open during a failover waits it out (a JVM opening while the PostgreSQL primary was
 * killed exited with "Database failure while defining class Dispenser: EOFException", naming no
 * database), and names the database and its user when it gives up; a refusal that waiting does not
 * change (a database that does not exist, a wrong password) is not waited on.
 */
class OpenThroughAnOutageTest {
    /** The dispenser policy, whose total wait bounds the open's, made short. */
    private static EngineConfig.Builder patient(EngineConfig base, Duration totalWait) {
        return EngineConfig.from(base).retry(RetryPoliciesConfig.builder().policy(DispenserConfig.DEFAULT_RETRY_POLICY,
                RetryPolicyConfig.from(DefaultRetryPolicies.DISPENSER_DEFAULTS).maxTotalWait(totalWait).build()).build());
    }

    @Test
    void aConnectionLostInTheMiddleOfAFirstOpen_isWaitedOut_andTheOpenCompletes() throws Exception {
        EngineConfig base = TestDatabases.postgres();
        EngineConfig own = TestDatabases.ownDatabase(base, "open_outage");
        HikariConfig pool = new HikariConfig();
        pool.setJdbcUrl(own.jdbcUrl());
        pool.setUsername(own.username());
        pool.setPassword(own.password());
        try (HikariDataSource real = new HikariDataSource(pool)) {
            // The primary goes away after the open's first two connections and answers again six later.
            AtomicInteger calls = new AtomicInteger();
            AtomicInteger refused = new AtomicInteger();
            DataSource failingOver = dataSource(() -> {
                int call = calls.incrementAndGet();
                if (call >= 3 && call <= 8) {
                    refused.incrementAndGet();
                    throw new SQLTransientConnectionException("An I/O error occurred while sending to the backend: EOF", "08006");
                }
                return real.getConnection();
            });
            EngineConfig config = patient(own, Duration.ofSeconds(60)).dataSource(failingOver)
                    .dispensers(DispensersConfig.builder().series("invoice", DispenserConfig.ofDefaults()).build()).build();
            try (ContentEngine engine = ContentEngine.open(config)) {
                assertThat(refused).as("every connection of the outage was asked for, and refused").hasValue(6);
                assertThat(engine.session("clerk").dispensers().get("invoice").next()).isEqualTo(1L);
            }
        } finally {
            TestDatabases.dropOwnDatabase(base, own);
        }
    }

    @Test
    void anOpenThatCannotConnect_givesUpAfterThePolicysWait_namingTheDatabaseAndItsUser() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        String url = "jdbc:postgresql://127.0.0.1:" + closedPort + "/test";
        EngineConfig config = patient(EngineConfig.from(TestDatabases.postgres()).jdbcUrl(url).connectionTimeout(Duration.ofMillis(250))
                .build(), Duration.ofSeconds(1)).build();
        assertThatThrownBy(() -> ContentEngine.open(config))
                .isInstanceOf(EngineRuntimeException.class)
                .hasMessageStartingWith("E_DATABASE_UNAVAILABLE: Cannot open Turnstile on " + url + " as " + config.username()
                        + ": the connection was lost or refused for ")
                .hasMessageContaining("the dispenser policy's maxTotalWait); last: E_DATABASE_UNAVAILABLE: Cannot connect to " + url)
                .hasMessageContaining("Connection refused");
    }

    @Test
    void aDatabaseThatDoesNotExist_isNotWaitedOn() {
        // (The test server trusts local connections, so a wrong password is not what it refuses.)
        String url = TestDatabases.postgres().jdbcUrl().replaceFirst("/[^/?]+(\\?|$)", "/no_such_database$1");
        EngineConfig config = patient(EngineConfig.from(TestDatabases.postgres()).jdbcUrl(url).build(), Duration.ofSeconds(60)).build();
        assertThatThrownBy(() -> ContentEngine.open(config))
                .hasMessageStartingWith("E_DATABASE_UNAVAILABLE: Cannot connect to " + url + " as " + config.username())
                .hasMessageContaining("does not exist");
    }

    private interface ConnectionSource {
        Connection get() throws SQLException;
    }

    /** A DataSource whose connections come from {@code source}. */
    private static DataSource dataSource(ConnectionSource source) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getConnection" -> source.get();
                    case "getLogWriter" -> (PrintWriter) null;
                    case "getLoginTimeout" -> 0;
                    case "isWrapperFor" -> false;
                    case "toString" -> "failing-over DataSource";
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
