package dev.turnstile.bench;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code java -jar bench/target/turnstile-bench.jar <benchmark> --db h2|postgres|mariadb}; {@code report} runs them all. */
@Command(name = "turnstile-bench", mixinStandardHelpOptions = true,
        description = "Turnstile benchmarks: each capability beside the plain-JDBC floor and the naive alternative.",
        subcommands = {ObjectSaveBenchmark.class, H2IsolationBenchmark.class, LockBenchmark.class, DispenserBenchmark.class, TreeLockBenchmark.class, ChangeFeedBenchmark.class, EditLockLoadBenchmark.class, ConsoleBenchmark.class, ReportCommand.class, CommandLine.HelpCommand.class})
public final class Bench {
    public static void main(String[] args) {
        System.exit(new CommandLine(new Bench()).execute(args));
    }
}
