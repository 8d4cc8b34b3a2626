package dev.turnstile.engine.config;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Files an operator gets wrong or an attacker writes (issue 14): each was, before, read silently
 * wrong, echoed a secret, hung or crashed; each is now refused naming the file, the key and why.
 */
class HostileConfigFileTest {
    @TempDir
    Path dir;

    private Path write(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text);
    }

    /**
     * YAML 1.1 read {@code 0123} as the number 83 and {@code on} as true; YAML 1.2 (Jackson 3) reads
     * both as the text written. A value YAML still reads as a number or a boolean ({@code 1e3} is
     * 1000.0) is refused for a text key with the advice to quote it, never coerced.
     */
    @Test
    void anUnquotedValueOfATextKey_isRefusedWithTheAdviceToQuoteIt_notCoerced() throws IOException {
        Path asWritten = write("turnstile.yaml", "database:\n  url: jdbc:h2:mem:x\n  username: 0123\nlocks:\n  breakerRole: on\n");
        EngineConfig read = EngineConfigFile.read(asWritten);
        assertThat(read.username()).isEqualTo("0123");
        assertThat(read.locks().breakerRole()).isEqualTo("on");
        Path number = write("turnstile.yaml", "database:\n  url: jdbc:h2:mem:x\n  username: 1e3\n");
        assertThatThrownBy(() -> EngineConfigFile.read(number)).hasMessage("E_CONFIG_INVALID: " + number
                + ":3: database.username = \"1000.0\": must be text, and YAML reads this unquoted value as the number 1000.0: put it in quotes");
        Path bool = write("turnstile.yaml", "locks:\n  breakerRole: true\n");
        assertThatThrownBy(() -> EngineConfigFile.read(bool)).hasMessage("E_CONFIG_INVALID: " + bool
                + ":2: locks.breakerRole = \"true\": must be text, and YAML reads this unquoted value as the boolean true: put it in quotes");
        Path quoted = write("turnstile.yaml", "database:\n  url: jdbc:h2:mem:x\n  username: \"1e3\"\nlocks:\n  breakerRole: 'true'\n");
        EngineConfig config = EngineConfigFile.read(quoted);
        assertThat(config.username()).isEqualTo("1e3");
        assertThat(config.locks().breakerRole()).isEqualTo("true");
    }

    @Test
    void aSecretLookingKey_neverHasItsValueEchoed_evenMisspelt() throws IOException {
        Path typo = write("turnstile.yaml", "database:\n  pasword: hunter2-secret\n");
        assertThatThrownBy(() -> EngineConfigFile.read(typo)).hasMessage("E_CONFIG_INVALID: " + typo
                + ":2: database.pasword = (hidden): unknown key; known keys here are [connectionTimeout, idleTransactionTimeout, maxPoolSize, migrate, password, severalGaleraWriters, url, username]")
                .hasMessageNotContaining("hunter2");
        Path list = write("turnstile.yaml", "database:\n  password: [hunter2-secret]\n");
        assertThatThrownBy(() -> EngineConfigFile.read(list)).hasMessage("E_CONFIG_INVALID: " + list
                + ":2: database.password = (hidden): must be a text value");
    }

    @Test
    void environmentVariables_fillValues_withDefaults_andAMissingOneIsNamed() throws IOException {
        Map<String, String> env = Map.of("DB_PASSWORD", "from-the-environment", "DB_HOST", "db1");
        Path file = write("turnstile.yaml", """
                database:
                  url: jdbc:postgresql://${DB_HOST}:${DB_PORT:-5432}/ecm
                  password: ${DB_PASSWORD}
                  username: $${literal}
                """);
        EngineConfig config = EngineConfigFile.read(file, env::get);
        assertThat(config.jdbcUrl()).isEqualTo("jdbc:postgresql://db1:5432/ecm");
        assertThat(config.password()).isEqualTo("from-the-environment");
        assertThat(config.username()).isEqualTo("${literal}");

        Path missing = write("turnstile.yaml", "database:\n  url: jdbc:postgresql://${DB_HOST}:5432/${DB_NAME}\n");
        assertThatThrownBy(() -> EngineConfigFile.read(missing, env::get)).hasMessage("E_CONFIG_INVALID: " + missing
                + ":2: database.url = \"jdbc:postgresql://${DB_HOST}:5432/${DB_NAME}\": the environment variable DB_NAME is not set"
                + " (give a default: ${DB_NAME:-…})");
        Path unclosed = write("turnstile.yaml", "database:\n  url: jdbc:h2:mem:${oops\n");
        assertThatThrownBy(() -> EngineConfigFile.read(unclosed, env::get)).hasMessage("E_CONFIG_INVALID: " + unclosed
                + ":2: database.url = \"jdbc:h2:mem:${oops\": ${ without a variable name and }: write ${NAME} or ${NAME:-default},"
                + " or $${ for the text ${");
        assertThat(EngineConfigFile.read(write("turnstile.yaml", "database:\n  username: ${HOME}\n")).username())
                .as("the real environment").isEqualTo(System.getenv("HOME"));
    }

    @Test
    void yamlAliases_areRefused_andTheAliasBombStaysHarmless() throws IOException {
        Path alias = write("turnstile.yaml", "roles:\n  - &r admin\nlocks:\n  breakerRole: *r\n");
        assertThatThrownBy(() -> EngineConfigFile.read(alias)).hasMessage("E_CONFIG_INVALID: " + alias
                + ": (file) = \"*r at line 4\": YAML aliases are not read: write the value out");
        StringBuilder bomb = new StringBuilder("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
        for (char c = 'b'; c <= 'j'; c++) {
            bomb.append(c).append(": &").append(c).append(" [");
            for (int i = 0; i < 9; i++) {
                bomb.append(i == 0 ? "" : ",").append('*').append((char) (c - 1));
            }
            bomb.append("]\n");
        }
        Path laughs = write("turnstile.yaml", bomb.toString());
        assertTimeoutPreemptively(java.time.Duration.ofSeconds(20), () -> assertThatThrownBy(() -> EngineConfigFile.read(laughs))
                .hasMessageEndingWith("YAML aliases are not read: write the value out"));
    }

    @Test
    void aNamedPipe_aHugeFile_andNonUtf8Text_areRefusedBeforeReading() throws Exception {
        Path fifo = dir.resolve("turnstile.yaml");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertTimeoutPreemptively(java.time.Duration.ofSeconds(20), () -> assertThatThrownBy(() -> EngineConfigFile.read(fifo))
                .hasMessage("E_CONFIG_INVALID: " + fifo + ": (file) = \"" + fifo
                        + "\": not a regular file (a directory, pipe or device): a configuration file is read whole"));
        Files.delete(fifo);

        Path huge = write("turnstile.yaml", "database:\n  url: \"" + "x".repeat(10 * 1024 * 1024) + "\"\n");
        long started = System.nanoTime();
        assertThatThrownBy(() -> EngineConfigFile.read(huge)).hasMessage("E_CONFIG_INVALID: " + huge
                + ": (file) = \"more than 1048576 bytes\": larger than 1 MiB: not a configuration file");
        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started)).as("seconds to refuse 10 MB (36 before)").isLessThan(10);

        Path latin1 = Files.write(dir.resolve("turnstile.yaml"), "database:\n  username: J\u00fcrgen\n".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        assertThatThrownBy(() -> EngineConfigFile.read(latin1)).hasMessageStartingWith("E_CONFIG_INVALID: " + latin1 + ": (file) = ")
                .hasMessageEndingWith(": not UTF-8 text; save the file as UTF-8");
    }

    @Test
    void deepNestingAndLongBaseConfigChains_areRefused_neverAStackOverflow() throws IOException {
        Path deep = write("turnstile.yaml", "a: ".repeat(3000) + "x\n");
        assertThatThrownBy(() -> EngineConfigFile.read(deep)).hasMessageStartingWith("E_CONFIG_INVALID: " + deep + ":1: (file) = ")
                .hasMessageEndingWith(": not valid YAML: mapping values are not allowed here");
        StringBuilder chain = new StringBuilder("retry:\n  configs:\n");
        for (int i = 0; i < 3000; i++) {
            chain.append("    c").append(i).append(": {baseConfig: c").append(i + 1).append("}\n");
        }
        chain.append("    c3000: {maxAttempts: 2}\n");
        Path longChain = write("turnstile.yaml", chain.toString());
        assertThatThrownBy(() -> EngineConfigFile.read(longChain)).hasMessage("E_CONFIG_INVALID: " + longChain
                + ":3: retry.configs.c0.baseConfig = \"c0 → … (32 configs)\": a baseConfig chain is at most 32 configs long");
    }

    @Test
    void aPropertiesFileWithAKeyTwice_isRefused_ratherThanTheLastOneWinning() throws IOException {
        write("turnstile.yaml", "retry:\n  policyFile: policies.properties\n");
        Path policies = write("policies.properties", """
                resilience4j.retry.instances.p.maxAttempts=3
                resilience4j.retry.instances.p.maxAttempts=30
                """);
        assertThatThrownBy(() -> EngineConfigFile.read(dir.resolve("turnstile.yaml"))).hasMessage("E_CONFIG_INVALID: " + policies
                + ":2: resilience4j.retry.instances.p.maxAttempts = \"30\": the key is set twice in the file; the last one would silently win");
    }

    @Test
    void aPolicyFileMixingSpringBootsFormWithTopLevelInstances_isRefused_ratherThanDroppingThem() throws IOException {
        write("turnstile.yaml", "retry:\n  policyFile: policies.yaml\n");
        Path policies = write("policies.yaml", """
                resilience4j:
                  retry:
                    instances:
                      a: {maxAttempts: 2}
                instances:
                  b: {maxAttempts: 3}
                """);
        assertThatThrownBy(() -> EngineConfigFile.read(dir.resolve("turnstile.yaml"))).hasMessage("E_CONFIG_INVALID: " + policies
                + ":5: instances = \"{\"b\":{\"maxAttempts\":3}}\": unknown key; known keys here are [resilience4j]");
    }

    @Test
    void listValues_showAsWritten_andABadExceptionClassIsReportedAgainstThePolicyFile() throws IOException {
        Path list = write("turnstile.yaml", "retry:\n  instances:\n    p:\n      retryCods: [E_OBJECT_LOCKED]\n");
        assertThatThrownBy(() -> EngineConfigFile.read(list)).hasMessageStartingWith("E_CONFIG_INVALID: " + list
                + ":4: retry.instances.p.retryCods = \"[\"E_OBJECT_LOCKED\"]\": unknown key");
        write("turnstile.yaml", "retry:\n  policyFile: policies.yaml\n");
        Path policies = write("policies.yaml", "instances:\n  p:\n    retryExceptions: [com.example.Missing]\n");
        assertThatThrownBy(() -> EngineConfigFile.read(dir.resolve("turnstile.yaml"))).hasMessage("E_CONFIG_INVALID: " + policies
                + ":3: instances.p.retryExceptions = \"com.example.Missing\": no such exception class");
    }

    @Test
    void aSeriesWithAnUnknownPolicyOrABadFormat_failsTheOpen_namingFileAndKey_beforeTheDatabase() throws IOException {
        String never = "database:\n  url: jdbc:postgresql://127.0.0.1:1/never-contacted\n";
        Path policy = write("turnstile.yaml", never + "dispensers:\n  series:\n    invoice:\n      retryPolicy: patient\n");
        assertThatThrownBy(() -> ContentEngine.open(policy)).hasMessage("E_CONFIG_INVALID: " + policy
                + ":6: dispensers.series.invoice.retryPolicy = \"patient\": no such retry policy; known policies are"
                + " [default, dispenser, tree-lock]");
        Path format = write("turnstile.yaml", never + "dispensers:\n  series:\n    invoice:\n      format: INV-{seq:6}\n      reset: yearly\n");
        assertThatThrownBy(() -> ContentEngine.open(format)).hasMessage("E_CONFIG_INVALID: " + format
                + ":6: dispensers.series.invoice.format = \"INV-{seq:6}\": the series restarts yearly, so the format must contain"
                + " {yyyy} or {yy} or its numbers repeat from one period to the next");
    }

    @Test
    void aDispenserSeriesFormatThatIsNotText_isRefusedWithTheRest() throws IOException {
        Path file = write("turnstile.yaml", "dispensers:\n  series:\n    invoice:\n      retryPolicy: 7\n");
        assertThatThrownBy(() -> EngineConfigFile.read(file)).hasMessage("E_CONFIG_INVALID: " + file
                + ":4: dispensers.series.invoice.retryPolicy = \"7\": must be text, and YAML reads this unquoted value as the number 7:"
                + " put it in quotes");
    }
}
