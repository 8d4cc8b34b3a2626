package dev.turnstile.engine.retry;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.retry.PolicyReload;
import dev.turnstile.api.retry.RetryExhaustedException;
import dev.turnstile.api.retry.RetryPoliciesConfig;
import dev.turnstile.api.retry.RetryPolicy;
import dev.turnstile.api.retry.RetryPolicyConfig;
import dev.turnstile.engine.LogCapture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A policy file changed under a running engine (issue 14, section 3): reload, or the file watch. */
class RetryPolicyReloadTest {
    @TempDir
    Path dir;

    private Path turnstile(String retry) throws IOException {
        return Files.writeString(dir.resolve("turnstile.yaml"), "database:\n  url: jdbc:h2:mem:reload-" + UUID.randomUUID()
                + ";DB_CLOSE_DELAY=-1\nretry:\n  policyFile: policies.yaml\n" + retry);
    }

    /**
     * Writes the policy file whole, as an editor's atomic save does (a temporary file moved over it):
     * a file rewritten in place can be read half-written by the watch, which is a case of its own
     * (the watch reads again once the writes have been quiet for 200 ms).
     */
    private Path policies(int attempts) throws IOException {
        return policyFile("instances:\n  p: {maxAttempts: " + attempts + ", waitDuration: 1ms, retryCodes: [E_OBJECT_LOCKED]}\n");
    }

    private Path policyFile(String text) throws IOException {
        Path written = Files.writeString(dir.resolve("policies.yaml.tmp"), text);
        return Files.move(written, dir.resolve("policies.yaml"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** The attempts one always-failing call makes before the policy gives up. */
    private static int attemptsOf(RetryPolicy policy) {
        AtomicInteger attempts = new AtomicInteger();
        assertThatThrownBy(() -> policy.call(() -> {
            attempts.incrementAndGet();
            throw EngineRuntimeException.of(ExceptionCode.E_OBJECT_LOCKED, "held elsewhere");
        })).isInstanceOf(RetryExhaustedException.class);
        return attempts.get();
    }

    @Test
    void reload_putsTheNewFileInForce_forAPolicyHeldSinceBefore_andKeepsItsMetrics() throws IOException {
        policies(2);
        try (ContentEngine engine = ContentEngine.open(turnstile(""))) {
            RetryPolicy held = engine.retryPolicies().get("p");
            assertThat(attemptsOf(held)).isEqualTo(2);
            policies(4);
            assertThat(engine.retryPolicies().reload()).as("changed").containsExactly("p");
            assertThat(attemptsOf(held)).isEqualTo(4);
            assertThat(held.metrics().attempts()).as("counted across the reload").isEqualTo(6);
            assertThat(engine.retryPolicies().reload()).as("nothing changed the second time").isEmpty();
        }
    }

    @Test
    void aBadNewFile_leavesThePoliciesInForce_andSaysWhy() throws IOException {
        Path file = policies(3);
        try (ContentEngine engine = ContentEngine.open(turnstile(""))) {
            List<PolicyReload> told = new CopyOnWriteArrayList<>();
            engine.retryPolicies().onReload(told::add);
            Files.writeString(file, "instances:\n  p: {maxAttempts: 0}\n  q: {maxAttempts: 9}\n");
            assertThatThrownBy(() -> engine.retryPolicies().reload()).hasMessage("E_CONFIG_INVALID: " + file.toAbsolutePath()
                    + ":2: instances.p.maxAttempts = \"0\": from 1 to 10,000,000");
            assertThat(attemptsOf(engine.retryPolicies().get("p"))).as("still the old p").isEqualTo(3);
            assertThat(engine.retryPolicies().names()).as("and no q: all or nothing").doesNotContain("q");
            assertThat(told).singleElement().satisfies(r -> {
                assertThat(r.isOk()).isFalse();
                assertThat(r.error()).contains("instances.p.maxAttempts");
            });
        }
    }

    @Test
    void aCallInFlight_finishesUnderTheSettingsItStartedWith() throws Exception {
        policies(3);
        try (ContentEngine engine = ContentEngine.open(turnstile(""))) {
            RetryPolicy p = engine.retryPolicies().get("p");
            CountDownLatch firstAttempt = new CountDownLatch(1);
            CountDownLatch reloaded = new CountDownLatch(1);
            AtomicInteger attempts = new AtomicInteger();
            CompletableFuture<Void> call = CompletableFuture.runAsync(() -> assertThatThrownBy(() -> p.call(() -> {
                if (attempts.incrementAndGet() == 1) {
                    firstAttempt.countDown();
                    await(reloaded);
                }
                throw EngineRuntimeException.of(ExceptionCode.E_OBJECT_LOCKED, "held elsewhere");
            })).isInstanceOf(RetryExhaustedException.class));
            assertThat(firstAttempt.await(30, TimeUnit.SECONDS)).isTrue();
            policies(1);
            engine.retryPolicies().reload();
            reloaded.countDown();
            call.get(30, TimeUnit.SECONDS);
            assertThat(attempts.get()).as("the call begun under maxAttempts 3").isEqualTo(3);
            assertThat(attemptsOf(p)).as("a call begun after the reload").isEqualTo(1);
        }
    }

    @Test
    void theFileWatch_reloadsWhenThePolicyFileIsRewritten() throws IOException {
        policies(2);
        try (ContentEngine engine = ContentEngine.open(turnstile("  reload: watch\n"))) {
            List<PolicyReload> told = new CopyOnWriteArrayList<>();
            engine.retryPolicies().onReload(told::add);
            policyFile("instances:\n  p: {maxAttempts: 0}\n"); // a bad write first: the policy stays
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> told.stream().anyMatch(r -> !r.isOk()));
            assertThat(engine.retryPolicies().get("p").config().maxAttempts()).isEqualTo(2);
            policies(9);
            // Listeners hear of a reload after it is in force: wait for their word, not for the policy.
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> told.stream().anyMatch(PolicyReload::isOk));
            assertThat(engine.retryPolicies().get("p").config().maxAttempts()).isEqualTo(9);
            // The reload that put it in force says what changed (the watch may see one write as two events).
            assertThat(told.stream().filter(PolicyReload::isOk).findFirst().orElseThrow().changed()).isEqualTo(Set.of("p"));
        }
    }

    private static final String LOCKP = "instances:\n  lockp:\n    maxAttempts: 7\n    waitDuration: 5ms\n    enableRandomizedWait: true\n"
            + "    retryCodes: [E_OBJECT_LOCKED]\n    maxTotalWait: 30s\n";

    /**
     * Issue 45: a policy file written in place in two halves 600 ms apart was put in force
     * half-written (the keys not yet written fell back to defaults). Eight threads read the policy
     * throughout: each reading is the whole old policy or the whole new one, never a half.
     */
    @Test
    void aPolicyFileWrittenInTwoHalves_isNeverInForceHalfWritten() throws Exception {
        Path file = policyFile(LOCKP);
        String next = LOCKP.replace("maxAttempts: 7", "maxAttempts: 9").replace("5ms", "10ms");
        int cut = next.indexOf("    enableRandomizedWait");
        try (ContentEngine engine = ContentEngine.open(turnstile("  reload: watch\n"));
             LogCapture log = new LogCapture(DefaultRetryPolicies.class.getName())) {
            RetryPolicy p = engine.retryPolicies().get("lockp");
            RetryPolicyConfig before = p.config();
            List<PolicyReload> told = new CopyOnWriteArrayList<>();
            engine.retryPolicies().onReload(told::add);
            Set<RetryPolicyConfig> seen = ConcurrentHashMap.newKeySet();
            AtomicBoolean stop = new AtomicBoolean();
            List<CompletableFuture<Void>> readers = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                readers.add(CompletableFuture.runAsync(() -> {
                    while (!stop.get()) {
                        seen.add(p.config());
                    }
                }));
            }
            Files.writeString(file, next.substring(0, cut)); // in place: truncated, then the first half
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> told.stream().anyMatch(r -> !r.isOk()));
            assertThat(p.config()).as("the half file refused").isEqualTo(before);
            Files.writeString(file, next.substring(cut), StandardOpenOption.APPEND);
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> told.stream().anyMatch(PolicyReload::isOk));
            stop.set(true);
            CompletableFuture.allOf(readers.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);

            RetryPolicyConfig after = p.config();
            assertThat(after.maxAttempts()).isEqualTo(9);
            assertThat(after.maxTotalWait()).isEqualTo(Duration.ofSeconds(30));
            assertThat(after.randomizedWait()).isTrue();
            assertThat(seen).as("every reading whole").allMatch(c -> c.equals(before) || c.equals(after));
            assertThat(told.stream().filter(r -> !r.isOk()).map(PolicyReload::error)).allMatch(error ->
                    error.contains("holds no policies") || error.contains("lockp.maxTotalWait (30s in force, none by default)"));
            assertThat(log.lines()).contains("WARN Retry policies reloaded from " + dir.resolve("turnstile.yaml")
                    + ": changed [lockp]: lockp.maxAttempts 7 → 9, lockp.waitDuration 5ms → 10ms");
        }
    }

    /** An editor's save in place empties the file first: an empty policy file is refused, never every policy at its defaults. */
    @Test
    void anEditorsSaveInPlace_isNeverReadAsNoPolicies() throws Exception {
        Path file = policyFile(LOCKP);
        try (ContentEngine engine = ContentEngine.open(turnstile("  reload: watch\n"))) {
            List<PolicyReload> told = new CopyOnWriteArrayList<>();
            engine.retryPolicies().onReload(told::add);
            Files.write(file, new byte[0]);
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> told.stream().anyMatch(r -> !r.isOk()));
            assertThat(told.get(0).error()).isEqualTo("E_CONFIG_INVALID: " + file.toAbsolutePath() + ": (root) = \"\": the policy"
                    + " file holds no policies (empty, only comments, ~ or {}); write them, or remove retry.policyFile");
            assertThat(engine.retryPolicies().get("lockp").config().maxTotalWait()).isEqualTo(Duration.ofSeconds(30));
            Files.writeString(file, LOCKP.replace("maxAttempts: 7", "maxAttempts: 8"));
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> told.stream().anyMatch(PolicyReload::isOk));
            assertThat(engine.retryPolicies().get("lockp").config().maxAttempts()).isEqualTo(8);
        }
    }

    /** A key or a policy that is dropped would put defaults in force unseen: the reload says so and the policies stay. */
    @Test
    void aReloadThatWouldDropAKeyOrAPolicy_isRefused_namingEach() throws IOException {
        policyFile(LOCKP + "  other: {maxAttempts: 2}\n");
        try (ContentEngine engine = ContentEngine.open(turnstile(""))) {
            policyFile(LOCKP.replace("    maxTotalWait: 30s\n", ""));
            assertThatThrownBy(() -> engine.retryPolicies().reload()).hasMessage("E_CONFIG_INVALID: " + dir.resolve("turnstile.yaml")
                    + ": retry = \"2 settings\": no longer written in the files: other (the whole policy), lockp.maxTotalWait (30s in"
                    + " force, none by default); a reload would put defaults in force unseen (a file read while half-written does"
                    + " this): write each value you mean, or restart the engine to drop a key or a policy");
            assertThat(engine.retryPolicies().get("lockp").config().maxTotalWait()).isEqualTo(Duration.ofSeconds(30));
            assertThat(engine.retryPolicies().names()).contains("other");
            policyFile(LOCKP.replace("30s", "45s") + "  other: {maxAttempts: 2}\n");
            assertThat(engine.retryPolicies().reload()).containsExactly("lockp");
        }
    }

    @Test
    void anEngineBuiltInCode_hasNothingToReload_andCannotWatch() {
        try (ContentEngine engine = ContentEngine.open(EngineConfig.builder().jdbcUrl("jdbc:h2:mem:reload-" + UUID.randomUUID()).build())) {
            assertThatThrownBy(() -> engine.retryPolicies().reload())
                    .hasMessage("E_CONFIG_INVALID: builder: (file) = \"builder\": this engine was not opened from a file: nothing to reload");
        }
        assertThatThrownBy(() -> ContentEngine.open(EngineConfig.builder().jdbcUrl("jdbc:h2:mem:x").retry(RetryPoliciesConfig.builder().reloadWatch(true).build()).build()))
                .hasMessage("E_CONFIG_INVALID: builder: retry.reload = \"watch\": only an engine opened from a file can watch it");
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(30, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
