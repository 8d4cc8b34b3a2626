package dev.turnstile.samples;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The reference host application: {@code java -jar samples/target/turnstile-samples.jar <command>}. */
@Command(name = "turnstile-samples", mixinStandardHelpOptions = true,
        description = "Turnstile's reference host application.",
        subcommands = {DemoCommand.class, LocksCommand.class, TakeANumberCommand.class, PlantCommand.class, FeedCommand.class, ServeCommand.class,
                CheckConfigCommand.class,
                CommandLine.HelpCommand.class})
public final class Main {
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /**
     * The command line, whose failures are one line each on standard error — the engine's message
     * names what failed (the database, the file and key, the object) — rather than a stack trace.
     */
    static CommandLine commandLine() {
        return new CommandLine(new Main()).setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println(cmd.getCommandName() + ": " + e.getMessage());
            return 1;
        });
    }
}
