package dev.turnstile.engine.config;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.retry.RetryPolicyConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetryPolicyFileTest {
    @TempDir
    Path dir;

    private Path write(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text);
    }

    @Test
    void baseConfigInheritance_andTheDefaultConfigAsImplicitBase() throws IOException {
        Path file = write("turnstile.yaml", """
                retry:
                  configs:
                    default:
                      maxAttempts: 5
                      waitDuration: 100ms
                    slow:
                      baseConfig: default
                      waitDuration: 2s
                      enableExponentialBackoff: true
                      exponentialBackoffMultiplier: 2
                      exponentialMaxWaitDuration: PT30S
                  instances:
                    locks:
                      baseConfig: slow
                      retryCodes: [E_OBJECT_LOCKED]
                      enableRandomizedWait: true
                      randomizedWaitFactor: 0.25
                      maxTotalWait: 1m
                    plain: {}
                """);
        Map<String, RetryPolicyConfig> policies = EngineConfigFile.read(file).retry().policies();
        assertThat(policies.keySet()).containsExactlyInAnyOrder("locks", "plain", "default");
        RetryPolicyConfig locks = policies.get("locks");
        assertThat(locks.maxAttempts()).isEqualTo(5);
        assertThat(locks.waitDuration()).isEqualTo(Duration.ofSeconds(2));
        assertThat(locks.exponentialBackoff()).isTrue();
        assertThat(locks.exponentialBackoffMultiplier()).isEqualTo(2.0);
        assertThat(locks.exponentialMaxWaitDuration()).isEqualTo(Duration.ofSeconds(30));
        assertThat(locks.randomizedWait()).isTrue();
        assertThat(locks.randomizedWaitFactor()).isEqualTo(0.25);
        assertThat(locks.retryCodes()).containsExactly(ExceptionCode.E_OBJECT_LOCKED);
        assertThat(locks.maxTotalWait()).isEqualTo(Duration.ofMinutes(1));
        RetryPolicyConfig plain = policies.get("plain");
        assertThat(plain.maxAttempts()).isEqualTo(5);
        assertThat(plain.waitDuration()).isEqualTo(Duration.ofMillis(100));
        assertThat(plain.exponentialBackoff()).isFalse();
    }

    @Test
    void separatePropertiesFile_withSpringBootPrefixAndCommaLists() throws IOException {
        write("policies.properties", """
                resilience4j.retry.configs.default.maxAttempts=7
                resilience4j.retry.instances.dispenser.waitDuration=20ms
                resilience4j.retry.instances.dispenser.retryCodes=E_OBJECT_MODIFIED, E_OBJECT_LOCKED
                resilience4j.retry.instances.dispenser.ignoreExceptions=java.lang.IllegalArgumentException
                """);
        Path file = write("turnstile.yaml", "retry:\n  policyFile: policies.properties\n");
        RetryPolicyConfig dispenser = EngineConfigFile.read(file).retry().policies().get("dispenser");
        assertThat(dispenser.maxAttempts()).isEqualTo(7);
        assertThat(dispenser.waitDuration()).isEqualTo(Duration.ofMillis(20));
        assertThat(dispenser.retryCodes()).containsExactlyInAnyOrder(ExceptionCode.E_OBJECT_MODIFIED, ExceptionCode.E_OBJECT_LOCKED);
        assertThat(dispenser.ignoreExceptions()).containsExactly("java.lang.IllegalArgumentException");
    }

    @Test
    void separateYamlFile_andThePolicyDefinedTwiceIsAnError() throws IOException {
        Path policies = write("policies.yaml", "instances:\n  locks:\n    maxAttempts: 9\n");
        Path ok = write("turnstile.yaml", "retry:\n  policyFile: policies.yaml\n");
        assertThat(EngineConfigFile.read(ok).retry().policies().get("locks").maxAttempts()).isEqualTo(9);

        Path twice = write("twice.yaml", "retry:\n  policyFile: policies.yaml\n  instances:\n    locks:\n      maxAttempts: 2\n");
        assertThatThrownBy(() -> EngineConfigFile.read(twice))
                .hasMessage("E_CONFIG_INVALID: " + policies.toAbsolutePath() + ":2: instances.locks = \"locks\": also defined in " + twice);
    }

    @Test
    void theTwoFilesAreOneSetOfNames_configsDefaultIsTheBaseOfEveryInstance_andABaseMayLiveInEitherFile() throws IOException {
        write("policies.yaml", """
                configs:
                  patient: {baseConfig: slow, maxAttempts: 50}
                instances:
                  p: {waitDuration: 10ms}
                  q: {baseConfig: slow}
                """);
        Path file = write("turnstile.yaml", """
                retry:
                  policyFile: policies.yaml
                  configs:
                    default: {maxAttempts: 7}
                    slow: {waitDuration: 2s}
                  instances:
                    r: {baseConfig: patient}
                """);
        Map<String, RetryPolicyConfig> policies = EngineConfigFile.read(file).retry().policies();
        assertThat(policies.get("p").maxAttempts()).as("the policy file's instance, on turnstile.yaml's default").isEqualTo(7);
        assertThat(policies.get("p").waitDuration()).isEqualTo(Duration.ofMillis(10));
        assertThat(policies.get("q").waitDuration()).as("a base from turnstile.yaml").isEqualTo(Duration.ofSeconds(2));
        assertThat(policies.get("r").maxAttempts()).as("a base from the policy file").isEqualTo(50);
        assertThat(policies.get("r").waitDuration()).isEqualTo(Duration.ofSeconds(2));

        Path policies2 = write("policies2.yaml", "configs:\n  default: {maxAttempts: 3}\n");
        Path twice = write("twice.yaml", "retry:\n  policyFile: policies2.yaml\n  configs:\n    default: {maxAttempts: 7}\n");
        assertThatThrownBy(() -> EngineConfigFile.read(twice)).hasMessage("E_CONFIG_INVALID: " + policies2.toAbsolutePath()
                + ":2: configs.default = \"default\": also defined in " + twice);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "unknown key        | maxAttemps: 3                  | retry.instances.p.maxAttemps = \"3\": unknown key; known keys here are [baseConfig, enableExponentialBackoff, enableRandomizedWait, exponentialBackoffMultiplier, exponentialMaxWaitDuration, ignoreCodes, ignoreExceptions, maxAttempts, maxTotalWait, randomizedWaitFactor, retryCodes, retryExceptions, waitDuration]",
            "bad duration       | waitDuration: soon             | retry.instances.p.waitDuration = \"soon\": must be a duration such as 500ms, 10s, 1m or PT10S",
            "multiplier below 1 | exponentialBackoffMultiplier: 0.5 | retry.instances.p.exponentialBackoffMultiplier = \"0.5\": from 1 to 100",
            "factor of 1        | randomizedWaitFactor: 1.0      | retry.instances.p.randomizedWaitFactor = \"1.0\": must be in [0, 1)",
            "negative factor    | randomizedWaitFactor: -0.1     | retry.instances.p.randomizedWaitFactor = \"-0.1\": must be in [0, 1)",
            "zero attempts      | maxAttempts: 0                 | retry.instances.p.maxAttempts = \"0\": from 1 to 10,000,000",
            "zero wait          | waitDuration: 0ms              | retry.instances.p.waitDuration = \"0ms\": from 1ms to 1h",
            "unknown baseConfig | baseConfig: nope               | retry.instances.p.baseConfig = \"nope\": no such config; known configs are []",
            "unknown code       | retryCodes: [E_NOPE]           | retry.instances.p.retryCodes = \"E_NOPE\": not an ExceptionCode; known codes are ",
    })
    void eachBadValue_namesFileKeyPathAndValue(String what, String line, String expected) throws IOException {
        Path file = write("turnstile.yaml", "retry:\n  instances:\n    p:\n      " + line + "\n");
        assertThatThrownBy(() -> EngineConfigFile.read(file))
                .hasMessageStartingWith("E_CONFIG_INVALID: " + file + ":4: " + expected);
    }

    @Test
    void unknownExceptionClass_failsTheEngineOpen_beforeTouchingTheDatabase() throws IOException {
        Path file = write("turnstile.yaml", """
                database:
                  url: jdbc:postgresql://127.0.0.1:1/never-contacted
                retry:
                  instances:
                    p:
                      retryExceptions: [com.example.Missing]
                """);
        assertThatThrownBy(() -> ContentEngine.open(file))
                .hasMessage("E_CONFIG_INVALID: " + file + ":6: retry.instances.p.retryExceptions = \"com.example.Missing\": no such exception class");
    }

    @Test
    void inheritanceLoop_isAnError() throws IOException {
        Path file = write("turnstile.yaml", """
                retry:
                  configs:
                    a: {baseConfig: b}
                    b: {baseConfig: a}
                """);
        assertThatThrownBy(() -> EngineConfigFile.read(file)).hasMessage("E_CONFIG_INVALID: " + file
                + ":3: retry.configs.a.baseConfig = \"a → b → a\": baseConfig inheritance loops");
    }

    @Test
    void lockBreakerRole_isConfigurable() throws IOException {
        Path file = write("turnstile.yaml", "locks:\n  breakerRole: ecm-admin\n");
        assertThat(EngineConfigFile.read(file).locks().breakerRole()).isEqualTo("ecm-admin");
        assertThat(EngineConfig.ofDefaults().locks().breakerRole()).isEqualTo("lock-breaker");
        assertThat(EngineConfig.ofDefaults().retry().policies()).isEmpty();
        assertThat(RetryPolicyConfig.ofDefaults().effectiveRetryCodes())
                .isEqualTo(Set.of(ExceptionCode.E_OBJECT_MODIFIED, ExceptionCode.E_OBJECT_LOCKED));
    }

    @Test
    void referencePolicyFileIsValid_andMeansWhatItsCommentsSay() {
        Map<String, RetryPolicyConfig> policies = EngineConfigFile.readPolicyFile(Path.of("..", "docs", "retry-policies-reference.yaml"));
        assertThat(policies.keySet()).containsExactlyInAnyOrder("locks", "quick", "default");
        RetryPolicyConfig locks = policies.get("locks");
        assertThat(locks.maxAttempts()).isEqualTo(50);
        assertThat(locks.maxTotalWait()).isEqualTo(Duration.ofMinutes(2));
        assertThat(locks.waitDuration()).isEqualTo(Duration.ofMillis(50));
        assertThat(locks.exponentialMaxWaitDuration()).isEqualTo(Duration.ofSeconds(2));
        assertThat(policies.get("quick")).isEqualTo(policies.get("default"));
    }
}
