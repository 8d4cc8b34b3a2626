package dev.turnstile.engine;

import dev.turnstile.host.ModulePathHost;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 40: the engine as a module. A host on the class path, with the engine and the jars it
 * needs on the module path (as {@code mvn dependency:build-classpath} lists them), reads a
 * configuration file, opens the engine, takes a number and saves an object through the plugin
 * API — Hibernate, Flyway, Jackson and HikariCP reach what the engine opens to them — and cannot
 * call the engine's internals, which the module exports to no one.
 */
class ModulePathHostTest {
    @Test
    void aHostOnTheModulePath_usesTheEngineThroughTheApi_andCannotReachItsInternals(@TempDir Path dir) throws Exception {
        List<String> jars = List.of(Files.readString(Path.of("target", "runtime-classpath.txt")).trim().split(java.io.File.pathSeparator));
        // jakarta.transaction-api's descriptor requires CDI, which nothing here has: on the class path, as Hibernate's guide has it.
        String modulePath = Path.of("target", "classes") + java.io.File.pathSeparator + String.join(java.io.File.pathSeparator,
                jars.stream().filter(j -> !j.contains("jakarta.transaction-api")).toList());
        String classPath = Path.of("target", "test-classes") + java.io.File.pathSeparator + String.join(java.io.File.pathSeparator,
                jars.stream().filter(j -> j.contains("jakarta.transaction-api")).toList());
        String url = "jdbc:h2:file:" + Path.of("target", "h2", "module-path-" + UUID.randomUUID()).toAbsolutePath();
        Path out = dir.resolve("host.out");
        Process host = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--module-path", modulePath, "--add-modules", "ALL-MODULE-PATH", "-cp", classPath, ModulePathHost.class.getName(), url, dir.toString())
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        assertThat(host.waitFor(120, TimeUnit.SECONDS)).as("the host ended").isTrue();
        List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
        assertThat(host.exitValue()).as("%s", String.join("\n", lines)).isZero();
        assertThat(lines).contains("CONFIG boss PT45S", "NUMBER PO-00001", "SAVED on the module path");
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("INTERNALS CLOSED ")
                .contains("module dev.turnstile.engine does not export dev.turnstile.engine.db"));
    }
}
