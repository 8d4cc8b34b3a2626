package dev.turnstile.samples;

import dev.turnstile.api.ConfigCheck;
import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.retry.RetryPolicyConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * For a deployment pipeline: checks a {@code turnstile.yaml} and its policy file as an engine open
 * would, without opening the database; prints the effective retry policies, or every error found
 * and exits 1.
 */
@Command(name = "check-config", description = "Check a turnstile.yaml and its policy file without opening the database;"
        + " print the effective retry policies, or every error (exit 1).")
final class CheckConfigCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE", description = "the turnstile.yaml to check")
    Path file;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        ConfigCheck check = ContentEngine.checkConfig(file);
        PrintWriter out = spec.commandLine().getOut();
        if (!check.isValid()) {
            PrintWriter err = spec.commandLine().getErr();
            err.printf(Locale.ROOT, "%s: %d error%s%n", file, check.errors().size(), check.errors().size() == 1 ? "" : "s");
            check.errors().forEach(e -> err.println("  " + e));
            err.flush();
            return 1;
        }
        out.printf(Locale.ROOT, "%s: OK%nretry policies (inheritance resolved, built-in ones included):%n", file);
        for (Map.Entry<String, RetryPolicyConfig> e : check.policies().entrySet()) {
            out.println("  " + e.getKey() + ": " + describe(e.getValue()));
        }
        out.flush();
        return 0;
    }

    /** One line an operator reads: attempts, waits, budget, what is retried and what is not. */
    static String describe(RetryPolicyConfig p) {
        StringBuilder s = new StringBuilder().append(p.maxAttempts()).append(" attempts, wait ").append(duration(p.waitDuration()));
        if (p.exponentialBackoff()) {
            s.append(" ×").append(p.exponentialBackoffMultiplier()).append(" up to ").append(duration(p.exponentialMaxWaitDuration()));
        }
        if (p.randomizedWait()) {
            s.append(" ±").append(Math.round(p.randomizedWaitFactor() * 100)).append('%');
        }
        s.append(", ").append(p.maxTotalWait() == null ? "no total limit" : "at most " + duration(p.maxTotalWait()) + " in all");
        s.append("; retries codes ").append(p.effectiveRetryCodes());
        if (!p.retryExceptions().isEmpty()) {
            s.append(" and classes ").append(p.retryExceptions());
        }
        if (!p.ignoreCodes().isEmpty() || !p.ignoreExceptions().isEmpty()) {
            s.append("; never ").append(p.ignoreCodes()).append(' ').append(p.ignoreExceptions());
        }
        return s.toString();
    }

    private static String duration(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
    }
}
