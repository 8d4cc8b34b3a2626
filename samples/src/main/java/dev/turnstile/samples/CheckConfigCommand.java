package dev.turnstile.samples;

import dev.turnstile.api.ConfigCheck;
import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.retry.RetryPolicyConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * For a deployment pipeline: checks each {@code turnstile.yaml} given, and its policy file, as an
 * engine open would, without opening the database. Each file gets a verdict — OK and the effective
 * retry policies, or every error found — and never a stack trace. Exit code: 0 every file valid,
 * 1 a file invalid, 2 a file that could not be read (or checked).
 */
@Command(name = "check-config", description = "Check turnstile.yaml files and their policy files without opening the database;"
        + " print each file's effective retry policies or every error. Exit 0 valid, 1 invalid, 2 could not be read.")
final class CheckConfigCommand implements Callable<Integer> {
    static final int VALID = 0;
    static final int INVALID = 1;
    static final int UNREADABLE = 2;

    @Parameters(arity = "1..*", paramLabel = "FILE", description = "the turnstile.yaml files to check")
    List<Path> files;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        int exit = VALID;
        for (Path file : files) {
            exit = Math.max(exit, check(file, out, err));
        }
        out.flush();
        err.flush();
        return exit;
    }

    private static int check(Path file, PrintWriter out, PrintWriter err) {
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            err.printf(Locale.ROOT, "%s: cannot be read (%s)%n", file, !Files.exists(file) ? "no such file"
                    : Files.isRegularFile(file) ? "no permission to read it" : "not a regular file");
            return UNREADABLE;
        }
        ConfigCheck check;
        try {
            check = ContentEngine.checkConfig(file);
        } catch (RuntimeException e) {
            // A fault of the check itself, not of the file: said in a line, never as a stack trace.
            err.printf(Locale.ROOT, "%s: could not be checked (%s in check-config itself; please report it)%n", file,
                    e.getClass().getSimpleName());
            return UNREADABLE;
        }
        if (!check.isValid()) {
            err.printf(Locale.ROOT, "%s: %d error%s%n", file, check.errors().size(), check.errors().size() == 1 ? "" : "s");
            check.errors().forEach(e -> err.println("  " + e));
            return INVALID;
        }
        out.printf(Locale.ROOT, "%s: OK%nretry policies (inheritance resolved, built-in ones included):%n", file);
        for (Map.Entry<String, RetryPolicyConfig> e : check.policies().entrySet()) {
            out.println("  " + e.getKey() + ": " + describe(e.getValue()));
        }
        return VALID;
    }

    /** One line an operator reads: attempts, waits, budget, what is retried and what is not. */
    static String describe(RetryPolicyConfig p) {
        StringBuilder s = new StringBuilder().append(p.maxAttempts()).append(" attempts, wait ").append(duration(p.waitDuration()));
        if (p.exponentialBackoff()) {
            s.append(" ×").append(p.exponentialBackoffMultiplier()).append(p.exponentialMaxWaitDuration() == null ? " with no cap"
                    : " up to " + duration(p.exponentialMaxWaitDuration()));
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
