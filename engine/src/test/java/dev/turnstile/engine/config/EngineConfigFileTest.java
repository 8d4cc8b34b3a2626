package dev.turnstile.engine.config;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EngineConfigFileTest {
    @TempDir
    Path dir;

    private Path write(String yaml) throws IOException {
        return Files.writeString(dir.resolve("turnstile.yaml"), yaml);
    }

    @Test
    void readsEveryDatabaseKey() throws IOException {
        Path file = write("""
                database:
                  url: jdbc:postgresql://db:5432/ecm
                  username: ecm
                  password: secret
                  maxPoolSize: 32
                  connectionTimeout: 2500ms
                """);
        EngineConfig config = EngineConfigFile.read(file);
        assertThat(config.jdbcUrl()).isEqualTo("jdbc:postgresql://db:5432/ecm");
        assertThat(config.username()).isEqualTo("ecm");
        assertThat(config.password()).isEqualTo("secret");
        assertThat(config.maxPoolSize()).isEqualTo(32);
        assertThat(config.connectionTimeout()).isEqualTo(Duration.ofMillis(2500));
        assertThat(config.source()).isEqualTo(file.toString());
        assertThat(config.toString()).contains("password=****").doesNotContain("secret");
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"", "# production settings\n# (truncated)\n", "~\n", "{}\n"})
    void aFileWithNoSettings_isRefused_ratherThanOpeningTheDefaults(String yaml) throws IOException {
        Path file = write(yaml);
        assertThatThrownBy(() -> EngineConfigFile.read(file)).hasMessageStartingWith("E_CONFIG_INVALID: " + file + ": (root) = ")
                .hasMessageEndingWith(": the file holds no settings (empty, only comments, ~ or {}); to run on the built-in"
                        + " defaults, open without a file");
    }

    @Test
    void duplicateKeysAndSecondDocuments_areRefused_ratherThanTheLastOneWinning() throws IOException {
        Path key = write("database:\n  url: jdbc:h2:mem:a\n  url: jdbc:h2:mem:b\n");
        assertThatThrownBy(() -> EngineConfigFile.read(key)).hasMessage("E_CONFIG_INVALID: " + key + ":3: database.url ="
                + " \"url: jdbc:h2:mem:b\": the key is set twice (first at line 2); the last one would silently win");
        Path section = write("database:\n  url: jdbc:h2:mem:a\nlocks:\n  breakerRole: x\ndatabase:\n  username: b\n");
        assertThatThrownBy(() -> EngineConfigFile.read(section)).hasMessage("E_CONFIG_INVALID: " + section + ":5: database ="
                + " \"database:\": the key is set twice (first at line 1); the last one would silently win");
        Path two = write("database:\n  url: jdbc:h2:mem:a\n---\ndatabase:\n  url: jdbc:h2:mem:b\n");
        assertThatThrownBy(() -> EngineConfigFile.read(two)).hasMessage("E_CONFIG_INVALID: " + two + ": (file) = \"a second"
                + " document after ---\": one document only: what follows the first would be ignored");
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', value = {
            "retry:\\n  instances:\\n    p:\\n      waitDuration: 36500d | retry.instances.p.waitDuration = \"36500d\": from 1ms to 1h",
            "database:\\n  maxPoolSize: 2147483647 | database.maxPoolSize = 2147483647 [Integer]: from 1 to 1,000",
            "treeLocks:\\n  lease: 3000000d | treeLocks.lease = \"3000000d\": from 1s to 1d",
            "treeLocks:\\n  lease: 99999999999999999999ms | treeLocks.lease = \"99999999999999999999ms\": must be a duration",
            "treeLocks:\\n  lease: 9999999999999999d | treeLocks.lease = \"9999999999999999d\": must be a duration",
            "treeLocks:\\n  lease: PT2562047788015215H | treeLocks.lease = \"PT2562047788015215H\": from 1s to 1d",
            "retry:\\n  instances:\\n    p:\\n      maxTotalWait: 3650d | retry.instances.p.maxTotalWait = \"3650d\": from 0s to 7d",
            "database:\\n  connectionTimeout: 1d | database.connectionTimeout = PT24H [Duration]: from 250ms to 10m",
            "database:\\n  idleTransactionTimeout: 500ms | database.idleTransactionTimeout = PT0.5S [Duration]: from 1s to 1h",
            "database:\\n  idleTransactionTimeout: 2h | database.idleTransactionTimeout = PT2H [Duration]: from 1s to 1h",
            "locks:\\n  handOver: 2m | locks.handOver = \"2m\": from 0s to 1m",
            "locks:\\n  handOver: -5ms | locks.handOver = \"-5ms\": must be a duration"})
    void hugeNumbersAndDurations_areRefusedWithTheirRange_neverACrash(String yaml, String expected) throws IOException {
        Path file = write(yaml.replace("\\n", "\n"));
        assertThatThrownBy(() -> EngineConfigFile.read(file)).isInstanceOf(dev.turnstile.api.EngineRuntimeException.class)
                .hasMessageStartingWith("E_CONFIG_INVALID: " + file + ":" + yaml.split("\\\\n").length + ": " + expected);
    }

    @Test
    void unknownKey_namesFileAndKeyPath() throws IOException {
        Path file = write("database:\n  urll: jdbc:h2:mem:x\n");
        assertThatThrownBy(() -> EngineConfigFile.read(file))
                .isInstanceOf(EngineRuntimeException.class)
                .hasMessage("E_CONFIG_INVALID: " + file + ":2: database.urll = \"jdbc:h2:mem:x\": unknown key;"
                        + " known keys here are [connectionTimeout, idleTransactionTimeout, maxPoolSize, migrate, password, severalGaleraWriters, url, username]");
    }

    @Test
    void badValues_nameFileKeyAndValue() throws IOException {
        Path pool = write("database:\n  maxPoolSize: 0\n");
        assertThatThrownBy(() -> EngineConfigFile.read(pool))
                .hasMessage("E_CONFIG_INVALID: " + pool + ":2: database.maxPoolSize = 0 [Integer]: from 1 to 1,000");

        Path notInt = write("database:\n  maxPoolSize: many\n");
        assertThatThrownBy(() -> EngineConfigFile.read(notInt))
                .hasMessage("E_CONFIG_INVALID: " + notInt + ":2: database.maxPoolSize = \"many\": must be an integer");

        Path duration = write("database:\n  connectionTimeout: soon\n");
        assertThatThrownBy(() -> EngineConfigFile.read(duration))
                .hasMessage("E_CONFIG_INVALID: " + duration + ":2: database.connectionTimeout = \"soon\":"
                        + " must be a duration such as 500ms, 10s, 1m or PT10S");

        Path url = write("database:\n  url: postgres://nope\n");
        assertThatThrownBy(() -> EngineConfigFile.read(url))
                .hasMessage("E_CONFIG_INVALID: " + url + ":2: database.url = \"postgres://nope\": must start with jdbc:");
    }

    @Test
    void brokenYamlAndMissingFile_areConfigErrors() throws IOException {
        Path broken = write("database: [unclosed\n");
        assertThatThrownBy(() -> EngineConfigFile.read(broken))
                .isInstanceOfSatisfying(EngineRuntimeException.class,
                        e -> assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_CONFIG_INVALID))
                .hasMessageContaining(broken.toString()).hasMessageContaining("not valid YAML");
        Path missing = dir.resolve("missing.yaml");
        assertThatThrownBy(() -> EngineConfigFile.read(missing))
                .hasMessageContaining(missing.toString()).hasMessageContaining("cannot be read");
    }

    @Test
    void durationsAcceptShortFormsAndIso() {
        assertThat(Durations.parse("100ms")).isEqualTo(Duration.ofMillis(100));
        assertThat(Durations.parse("2s")).isEqualTo(Duration.ofSeconds(2));
        assertThat(Durations.parse("1m")).isEqualTo(Duration.ofMinutes(1));
        assertThat(Durations.parse("PT0.25S")).isEqualTo(Duration.ofMillis(250));
        assertThat(Durations.parse("2 weeks")).isNull();
    }

    @Test
    void referenceFileIsValid_andStatesTheDefaults() {
        EngineConfig reference = EngineConfigFile.read(Path.of("..", "docs", "turnstile-reference.yaml"));
        EngineConfig defaults = EngineConfig.ofDefaults();
        assertThat(reference.jdbcUrl()).isEqualTo(defaults.jdbcUrl());
        assertThat(reference.username()).isEqualTo(defaults.username());
        assertThat(reference.password()).isEqualTo(defaults.password());
        assertThat(reference.maxPoolSize()).isEqualTo(defaults.maxPoolSize());
        assertThat(reference.connectionTimeout()).isEqualTo(defaults.connectionTimeout());
        assertThat(reference.migrate()).isEqualTo(defaults.migrate());
        assertThat(reference.severalGaleraWriters()).isEqualTo(defaults.severalGaleraWriters()).isFalse();
        assertThat(reference.locks().breakerRole()).isEqualTo(defaults.locks().breakerRole());
        assertThat(reference.locks().handOver()).isEqualTo(defaults.locks().handOver()).isEqualTo(Duration.ofMillis(5));
        assertThat(reference.retry().policies()).isEqualTo(defaults.retry().policies());
        assertThat(reference.dispensers().adminRole()).isEqualTo(defaults.dispensers().adminRole());
        assertThat(reference.dispensers()).isEqualTo(defaults.dispensers());
        assertThat(reference.treeLocks().lease()).isEqualTo(defaults.treeLocks().lease());
        assertThat(reference.treeLocks().retryPolicy()).isEqualTo(defaults.treeLocks().retryPolicy());
        assertThat(reference.changes().enabled()).isEqualTo(defaults.changes().enabled()).isFalse();
        assertThat(reference.editLocks().types()).isEqualTo(defaults.editLocks().types());
    }

    @Test
    void editLocksSection_readsThePapersKeys_andNamesBadValues() throws IOException {
        EngineConfig config = EngineConfigFile.read(write("editLocks:\n  types:\n    wiki:\n      heartbeat: 120000\n"
                + "      timeout: 3600000\n      isMinimum: 1\n      htmlTags: \"p；pre\"\n      maxLocksPerUser: 5\n"));
        assertThat(config.editLocks().types().get("wiki")).isEqualTo(new dev.turnstile.api.editlock.EditLockConfig(Duration.ofMinutes(2),
                Duration.ofHours(1), true, java.util.List.of("p", "pre"), 5));
        Path bad = write("editLocks:\n  types:\n    wiki:\n      isMinimum: 2\n");
        assertThatThrownBy(() -> EngineConfigFile.read(bad)).hasMessage("E_CONFIG_INVALID: " + bad
                + ":4: editLocks.types.wiki.isMinimum = \"2\": must be true, false, 1 or 0");
        Path shortTimeout = write("editLocks:\n  types:\n    wiki:\n      heartbeat: 120000\n      timeout: 1000\n");
        assertThatThrownBy(() -> EngineConfigFile.read(shortTimeout)).hasMessageContaining(shortTimeout + ":3: editLocks.types.wiki")
                .hasMessageContaining("edit lock timeout");
        Path typo = write("editLocks:\n  types:\n    wiki:\n      heartBeat: 1000\n");
        assertThatThrownBy(() -> EngineConfigFile.read(typo)).hasMessageContaining("editLocks.types.wiki.heartBeat").hasMessageContaining("unknown key");
    }

    @Test
    void changesSection_readsEnabled_andNamesABadValue() throws IOException {
        assertThat(EngineConfigFile.read(write("changes:\n  enabled: true\n")).changes().enabled()).isTrue();
        Path bad = write("changes:\n  enabled: maybe\n");
        assertThatThrownBy(() -> EngineConfigFile.read(bad)).hasMessage("E_CONFIG_INVALID: " + bad
                + ":2: changes.enabled = \"maybe\": must be true or false");
        Path typo = write("changes:\n  enable: true\n");
        assertThatThrownBy(() -> EngineConfigFile.read(typo)).hasMessageContaining(typo + ":2: changes.enable = \"true\": unknown key");
    }

    @Test
    void severalGaleraWriters_defaultsToFalse_readsTrue_andNamesABadValue() throws IOException {
        assertThat(EngineConfigFile.read(write("database:\n  url: jdbc:h2:mem:x\n")).severalGaleraWriters()).isFalse();
        assertThat(EngineConfigFile.read(write("database:\n  severalGaleraWriters: true\n")).severalGaleraWriters()).isTrue();
        Path bad = write("database:\n  severalGaleraWriters: sometimes\n");
        assertThatThrownBy(() -> EngineConfigFile.read(bad)).hasMessage("E_CONFIG_INVALID: " + bad
                + ":2: database.severalGaleraWriters = \"sometimes\": must be true or false");
    }

    @Test
    void databaseMigrate_defaultsToTrue_readsFalse_andNamesABadValue() throws IOException {
        assertThat(EngineConfigFile.read(write("database:\n  url: jdbc:h2:mem:x\n")).migrate()).isTrue();
        assertThat(EngineConfigFile.read(write("database:\n  migrate: false\n")).migrate()).isFalse();
        Path bad = write("database:\n  migrate: later\n");
        assertThatThrownBy(() -> EngineConfigFile.read(bad)).hasMessage("E_CONFIG_INVALID: " + bad
                + ":2: database.migrate = \"later\": must be true or false");
    }

    @Test
    void treeLocksSection_readsEveryKey_andNamesBadValues() throws IOException {
        EngineConfig config = EngineConfigFile.read(write("treeLocks:\n  lease: 2m\n  retryPolicy: patient\n"));
        assertThat(config.treeLocks().lease()).isEqualTo(Duration.ofMinutes(2));
        assertThat(config.treeLocks().retryPolicy()).isEqualTo("patient");
        Path shortLease = write("treeLocks:\n  lease: 10ms\n");
        assertThatThrownBy(() -> EngineConfigFile.read(shortLease)).hasMessage("E_CONFIG_INVALID: " + shortLease
                + ":2: treeLocks.lease = \"10ms\": from 1s to 1d");
        Path badLease = write("treeLocks:\n  lease: forever\n");
        assertThatThrownBy(() -> EngineConfigFile.read(badLease)).hasMessage("E_CONFIG_INVALID: " + badLease
                + ":2: treeLocks.lease = \"forever\": must be a duration such as 500ms, 10s, 1m or PT10S");
        Path typo = write("treeLocks:\n  leese: 2m\n");
        assertThatThrownBy(() -> EngineConfigFile.read(typo)).hasMessageContaining(typo + ":2: treeLocks.leese = \"2m\": unknown key");
        Path unknownPolicy = write("treeLocks:\n  retryPolicy: patient\n");
        assertThatThrownBy(() -> ContentEngine.open(unknownPolicy)).hasMessageContaining(unknownPolicy
                + ":2: treeLocks.retryPolicy = \"patient\": no such retry policy; known policies are [default, dispenser, tree-lock]");
    }

    @Test
    void dispensersSection_readsEveryKey_andNamesBadValues() throws IOException {
        Path file = write("""
                dispensers:
                  adminRole: numbering-admin
                  series:
                    invoice:
                      strategy: pessimistic
                      feelingUnlucky: false
                      start: 1000
                      format: "INV-{yyyy}-{seq:6}"
                      reset: yearly
                      retryPolicy: patient
                      lockTimeoutSeconds: 12
                      register: true
                      maxBlock: 50
                      requestKeyRetention: 2h
                """);
        EngineConfig config = EngineConfigFile.read(file);
        assertThat(config.dispensers().adminRole()).isEqualTo("numbering-admin");
        var invoice = config.dispensers().series().get("invoice");
        assertThat(invoice.strategy()).isEqualTo(dev.turnstile.api.dispenser.DispenserStrategy.PESSIMISTIC);
        assertThat(invoice.start()).isEqualTo(1000);
        assertThat(invoice.format()).isEqualTo("INV-{yyyy}-{seq:6}");
        assertThat(invoice.reset()).isEqualTo(dev.turnstile.api.dispenser.ResetPeriod.YEARLY);
        assertThat(invoice.retryPolicy()).isEqualTo("patient");
        assertThat(invoice.lockTimeoutSeconds()).isEqualTo(12);
        assertThat(invoice.register()).isTrue();
        assertThat(invoice.maxBlock()).isEqualTo(50);
        assertThat(invoice.requestKeyRetention()).isEqualTo(java.time.Duration.ofHours(2));
        Path retention = write("dispensers:\n  series:\n    x:\n      requestKeyRetention: 400d\n");
        assertThatThrownBy(() -> EngineConfigFile.read(retention)).hasMessageEndingWith("dispensers.series.x.requestKeyRetention"
                + " = \"400d\": from 1s to 366d");

        Path strategy = write("dispensers:\n  series:\n    x:\n      strategy: fastest\n");
        assertThatThrownBy(() -> EngineConfigFile.read(strategy)).hasMessage("E_CONFIG_INVALID: " + strategy
                + ":4: dispensers.series.x.strategy = \"fastest\": must be one of [COOPERATIVE_LOCK, FIRST_WRITER_WINS, PESSIMISTIC, COMBINING]");
        Path key = write("dispensers:\n  series:\n    x:\n      strat: COMBINING\n");
        assertThatThrownBy(() -> EngineConfigFile.read(key)).hasMessageStartingWith("E_CONFIG_INVALID: " + key
                + ":4: dispensers.series.x.strat = \"COMBINING\": unknown key");
        Path start = write("dispensers:\n  series:\n    x:\n      start: -5\n");
        assertThatThrownBy(() -> EngineConfigFile.read(start)).hasMessageContaining("dispensers.series.x.start = \"-5\"")
                .hasMessageContaining("must be zero or more");
    }
}
