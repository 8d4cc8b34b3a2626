package dev.turnstile.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Benchmark cells measured in child JVMs: each child warms up on its own, says READY, and starts
 * its measured run on the parent's GO, so every child measures at the same time.
 */
final class ChildProcesses {
    private final List<Process> children = new ArrayList<>();
    private final List<BufferedReader> outputs = new ArrayList<>();

    /** Starts one child per argument list: {@code java -cp <this class path> Bench <arguments>}. */
    ChildProcesses(List<List<String>> arguments) throws Exception {
        for (List<String> args : arguments) {
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), Bench.class.getName()));
            command.addAll(args);
            Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            children.add(p);
            outputs.add(new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)));
        }
    }

    /** Waits until every child is READY, then tells them all to GO. */
    void readyThenGo() throws Exception {
        for (BufferedReader out : outputs) {
            expect(out, "READY");
        }
        for (Process p : children) {
            p.getOutputStream().write("GO\n".getBytes(StandardCharsets.UTF_8));
            p.getOutputStream().flush();
        }
    }

    /** Each child's output, to read its results from with {@link #expect}. */
    List<BufferedReader> outputs() {
        return outputs;
    }

    /** Waits for every child to end. */
    void awaitExit() throws Exception {
        for (Process p : children) {
            p.waitFor(60, TimeUnit.SECONDS);
        }
    }

    /** The next line of {@code out} that starts with {@code prefix}. */
    static String expect(BufferedReader out, String prefix) throws Exception {
        for (String line; (line = out.readLine()) != null; ) {
            if (line.startsWith(prefix)) {
                return line;
            }
        }
        throw new IllegalStateException("a child ended without " + prefix.trim());
    }
}
