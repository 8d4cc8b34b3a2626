package dev.turnstile.samples;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The reference host application: {@code java -jar samples/target/turnstile-samples.jar <command>}. */
@Command(name = "turnstile-samples", mixinStandardHelpOptions = true,
        description = "Turnstile's reference host application.",
        subcommands = {DemoCommand.class, LocksCommand.class, TakeANumberCommand.class, PlantCommand.class, FeedCommand.class, ServeCommand.class,
                CommandLine.HelpCommand.class})
public final class Main {
    public static void main(String[] args) {
        System.exit(new CommandLine(new Main()).execute(args));
    }
}
