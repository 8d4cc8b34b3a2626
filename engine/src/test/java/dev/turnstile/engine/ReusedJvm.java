package dev.turnstile.engine;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The main class of a child JVM that {@link ChildJvm} runs one worker after another in, instead of
 * starting a JVM for each (a start is seconds of CPU on this machine; the suites need hundreds).
 * Each line from the parent is {@code RUN ROUND CLASS ARGS…} (arguments URL-encoded after a
 * {@code =}) or {@code IN LINE}, a line for the running worker's {@code System.in}. A worker's
 * {@code main} runs on a thread of its own with a fresh {@code System.in}; when it returns (or
 * throws, its trace on standard error) this prints {@code @@END ROUND 0} (or {@code 1}) and closes
 * that input. Standard input closed: the JVM exits, whatever still runs.
 */
public final class ReusedJvm {
    static final String END = "@@END ";

    private ReusedJvm() {
    }

    public static void main(String[] ignored) throws Exception {
        BufferedReader parent = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PipedOutputStream input = null;
        for (String line; (line = parent.readLine()) != null; ) {
            if (line.startsWith("IN ")) {
                try {
                    if (input != null) {
                        input.write((line.substring(3) + "\n").getBytes(StandardCharsets.UTF_8));
                        input.flush();
                    }
                } catch (IOException workerGone) {
                    // the worker stopped reading: the line has nobody to go to
                }
            } else if (line.startsWith("RUN ")) {
                String[] parts = line.split(" ");
                PipedOutputStream feed = new PipedOutputStream();
                System.setIn(new PipedInputStream(feed, 1 << 16));
                input = feed;
                run(parts[1], Class.forName(parts[2]), Arrays.stream(parts, 3, parts.length)
                        .map(a -> URLDecoder.decode(a.substring(1), StandardCharsets.UTF_8)).toArray(String[]::new), feed);
            }
        }
        System.exit(0); // the parent is gone: so are a worker's threads that outlived its main
    }

    private static void run(String round, Class<?> main, String[] args, PipedOutputStream feed) {
        Thread worker = new Thread(() -> {
            int status = 0;
            try {
                main.getMethod("main", String[].class).invoke(null, (Object) args);
            } catch (Throwable t) {
                (t instanceof java.lang.reflect.InvocationTargetException i ? i.getCause() : t).printStackTrace();
                status = 1;
            }
            System.out.println(END + round + " " + status);
            System.out.flush();
            try {
                feed.close();
            } catch (IOException ignored) {
                // nothing left to tell the worker's threads
            }
        }, "worker-" + main.getSimpleName());
        worker.start();
    }
}
