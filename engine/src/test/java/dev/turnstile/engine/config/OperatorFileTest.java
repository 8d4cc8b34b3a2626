package dev.turnstile.engine.config;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.LockConfig;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.DispensersConfig;
import dev.turnstile.api.retry.RetryPoliciesConfig;
import dev.turnstile.api.retry.RetryPolicyConfig;
import dev.turnstile.api.treelock.TreeLocksConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An operator's files, the last mile (issue 45): a key with no value, an empty policy file, a tab,
 * a key written twice — each refused naming file, line and key; a builder handed null names the setting.
 */
class OperatorFileTest {
    @TempDir
    Path dir;

    private Path write(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text);
    }

    /** A key with no value fell back to its default (database.username:) or lost its key from the message (retry.policyFile:). */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "database:\\n  url: jdbc:h2:mem:x\\n  username:\\n                        | 3 | database.username",
            "retry:\\n  policyFile:\\n                                                | 2 | retry.policyFile",
            "retry:\\n  instances:\\n    p:\\n      maxAttempts: 3\\n      maxTotalWait:\\n | 5 | retry.instances.p.maxTotalWait",
            "dispensers:\\n  series:\\n    invoice:\\n                                  | 3 | dispensers.series.invoice",
            "database:\\n  username:\\n  url: jdbc:h2:mem:x\\n                        | 2 | database.username",
            "retry:\\n  instances:\\n    p:\\n      maxTotalWait: ~\\n                  | 4 | retry.instances.p.maxTotalWait"})
    void aKeyWithNoValue_isRefused_namingFileLineAndKey(String yaml, int line, String key) throws IOException {
        Path file = write("turnstile.yaml", yaml.replace("\\n", "\n"));
        assertThatThrownBy(() -> EngineConfigFile.read(file)).hasMessage("E_CONFIG_INVALID: " + file + ":" + line + ": " + key
                + " = null: the key has no value; write one, or leave the key out for its default");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"''", "'# policies moved\\n'", "'~\\n'", "'{}\\n'"})
    void anEmptyPolicyFile_isRefused_ratherThanEveryPolicyAtItsDefaults(String text) throws IOException {
        Path yaml = write("turnstile.yaml", "retry:\n  policyFile: policies.yaml\n");
        Path policies = write("policies.yaml", text.replace("\\n", "\n"));
        assertThatThrownBy(() -> EngineConfigFile.read(yaml)).hasMessageStartingWith("E_CONFIG_INVALID: " + policies + ": (root) = ")
                .hasMessageEndingWith(": the policy file holds no policies (empty, only comments, ~ or {}); write them, or remove"
                        + " retry.policyFile");
        assertThatThrownBy(() -> EngineConfigFile.readPolicyFile(policies)).hasMessageContaining("holds no policies");
    }

    @Test
    void aTab_isRefusedWithYamlsWholeReason_andItsLine() throws IOException {
        Path file = write("turnstile.yaml", "database:\n  url: jdbc:h2:mem:x\n\tusername: sa\n");
        assertThatThrownBy(() -> EngineConfigFile.read(file)).hasMessage("E_CONFIG_INVALID: " + file + ":3: (file) = \"username: sa\":"
                + " not valid YAML: found character 'a tab' that cannot start any token. (Do not use a tab for indentation)");
    }

    @Test
    void aKeyTwiceInAPolicy_namesTheKeyPathAndBothLines() throws IOException {
        Path yaml = write("turnstile.yaml", "retry:\n  policyFile: policies.yaml\n");
        Path policies = write("policies.yaml", "instances:\n  p:\n    maxAttempts: 3\n    waitDuration: 1s\n    maxAttempts: 30\n");
        assertThatThrownBy(() -> EngineConfigFile.read(yaml)).hasMessage("E_CONFIG_INVALID: " + policies + ":5: instances.p.maxAttempts"
                + " = \"maxAttempts: 30\": the key is set twice (first at line 3); the last one would silently win");
    }

    /** A refusal found at the open, after the reading (a policy a capability names), is placed at its line too. */
    @Test
    void aRefusalOfTheOpen_carriesTheLine_asCheckConfigPrintsIt() throws IOException {
        Path file = write("turnstile.yaml", "database:\n  url: jdbc:postgresql://127.0.0.1:1/never\ntreeLocks:\n  lease: 2m\n"
                + "  retryPolicy: patient\n");
        assertThatThrownBy(() -> dev.turnstile.api.ContentEngine.open(file)).hasMessage("E_CONFIG_INVALID: " + file
                + ":5: treeLocks.retryPolicy = \"patient\": no such retry policy; known policies are [default, dispenser, tree-lock]");
        assertThat(dev.turnstile.api.ContentEngine.checkConfig(file).errors()).containsExactly("E_CONFIG_INVALID: " + file
                + ":5: treeLocks.retryPolicy = \"patient\": no such retry policy; known policies are [default, dispenser, tree-lock]");
        EngineRuntimeException e = dev.turnstile.engine.Failures.failure(() -> dev.turnstile.api.ContentEngine.open(file));
        assertThat(e.getConfigSource()).isEqualTo(file.toString());
        assertThat(e.getConfigKeyPath()).isEqualTo("treeLocks.retryPolicy");
        assertThat(e.getConfigLine()).isEqualTo(5);
    }

    @Test
    void everyBuilderSetter_refusesNull_namingTheSetting_neverABareNullPointerException() {
        assertThatThrownBy(() -> DispenserConfig.builder().strategy(null)).isInstanceOfSatisfying(EngineRuntimeException.class,
                e -> assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_BAD_VALUE)).hasMessage("E_BAD_VALUE: Bad value for strategy: null (must be set)");
        assertThatThrownBy(() -> DispenserConfig.builder().reset(null)).hasMessage("E_BAD_VALUE: Bad value for reset: null (must be set)");
        assertThatThrownBy(() -> DispenserConfig.builder().retryPolicy(null)).hasMessage("E_BAD_VALUE: Bad value for retryPolicy: null (must be set)");
        assertThatThrownBy(() -> DispenserConfig.builder().requestKeyRetention(null))
                .hasMessage("E_BAD_VALUE: Bad value for requestKeyRetention: null (from 1s to 366d)");
        assertThatThrownBy(() -> RetryPolicyConfig.builder().retryCodes(null)).hasMessage("E_BAD_VALUE: Bad value for retryCodes: null (must be set)");
        java.util.Set<String> withNull = new java.util.HashSet<>();
        withNull.add(null);
        assertThatThrownBy(() -> RetryPolicyConfig.builder().retryExceptions(withNull))
                .hasMessage("E_BAD_VALUE: Bad value for retryExceptions element: null (must be set)");
        assertThatThrownBy(() -> RetryPolicyConfig.builder().waitDuration(null))
                .hasMessage("E_BAD_VALUE: Bad value for waitDuration: null (from 1ms to 1h)");
        assertThatThrownBy(() -> EngineConfig.builder().username(null)).hasMessage("E_CONFIG_INVALID: builder: database.username = null: must be set");
        assertThatThrownBy(() -> EngineConfig.builder().treeLocks(null)).hasMessage("E_CONFIG_INVALID: builder: treeLocks = null: must be set");
        assertThatThrownBy(() -> DispensersConfig.builder().series("invoice", null))
                .hasMessage("E_BAD_VALUE: Bad value for dispensers.series.invoice: null (must be set)");
        assertThatThrownBy(() -> RetryPoliciesConfig.of(null)).hasMessage("E_BAD_VALUE: Bad value for retry.instances: null (must be set)");
        assertThatThrownBy(() -> TreeLocksConfig.builder().lease(null)).hasMessage("E_BAD_VALUE: Bad value for treeLocks.lease: null (from 1s to 1d)");
        assertThatThrownBy(() -> LockConfig.builder().breakerRole(" ")).hasMessage("E_BAD_VALUE: Bad value for locks.breakerRole: \" \" (must be a role name)");
        assertThatThrownBy(() -> new dev.turnstile.api.PropertyDefinition("Title", null, false, null, 10))
                .hasMessage("E_BAD_VALUE: Bad value for type of Title: null (must be set)");
    }
}
