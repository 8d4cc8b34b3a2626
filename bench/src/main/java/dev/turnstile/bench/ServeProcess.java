package dev.turnstile.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** A {@code serve} process of the samples jar, on a free port, for the benchmarks that time HTTP requests. */
final class ServeProcess implements AutoCloseable {
    private static final String SERVING = "Turnstile serving on ";
    private final Process process;
    /** The server's address, {@code http://127.0.0.1:port}. */
    final String base;

    ServeProcess(Path samplesJar, Path config, Path users) throws Exception {
        process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                samplesJar.toAbsolutePath().toString(), "serve", "--port", "0", "--config", config.toString(),
                "--users", users.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String found = null;
        for (String line; found == null && (line = out.readLine()) != null; ) {
            if (line.startsWith(SERVING)) {
                found = line.substring(SERVING.length(), line.indexOf(' ', SERVING.length()));
            }
        }
        if (found == null) {
            process.destroy();
            throw new IllegalStateException("serve did not start (its errors are above)");
        }
        base = found;
        Thread drain = new Thread(() -> out.lines().forEach(l -> { }));
        drain.setDaemon(true);
        drain.start();
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        process.waitFor(30, TimeUnit.SECONDS);
    }
}
