package dev.turnstile.samples;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Another JVM running this same application with a subcommand: what the multi-process demos use.
 * The child prints READY, waits for GO on its standard input, and reports on its standard output.
 */
final class ChildProcess {
    private final Process process;
    private final BufferedReader out;

    private ChildProcess(Process process) {
        this.process = process;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    static ChildProcess start(List<String> subcommandAndArgs) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        command.addAll(subcommandAndArgs);
        return new ChildProcess(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start());
    }

    long pid() {
        return process.pid();
    }

    void go() throws IOException {
        send("GO");
    }

    /** Writes one line to the child's standard input. */
    void send(String line) throws IOException {
        process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().flush();
    }

    /** Reads lines, handing each to {@code each}, until one starts with {@code prefix}; returns that one. */
    String readUntil(String prefix, Consumer<String> each) throws IOException {
        for (String line; (line = out.readLine()) != null; ) {
            if (line.startsWith(prefix)) {
                return line;
            }
            each.accept(line);
        }
        throw new IOException("child process " + process.pid() + " ended without printing " + prefix.trim());
    }

    String readUntil(String prefix) throws IOException {
        return readUntil(prefix, line -> { });
    }

    /** In a child: say READY and wait for the parent's GO, so all processes start together. */
    static void readyAndWait() throws IOException {
        System.out.println("READY");
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
    }
}
