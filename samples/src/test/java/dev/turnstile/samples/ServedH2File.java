package dev.turnstile.samples;

import java.nio.file.Path;
import java.util.UUID;

/**
 * An H2 file for commands that run several processes on it (AUTO_SERVER), under target/ rather than
 * in a {@code @TempDir}: the file's server process outlives the test by up to its idle time and
 * writes there meanwhile, so JUnit's deletion of a temp directory failed now and then ("directory
 * not empty").
 */
final class ServedH2File {
    private ServedH2File() {
    }

    /** A new file's URL, as the commands' turnstile.yaml would give it. */
    static String url(String name) {
        Path file = Path.of("target", "h2", name + "-" + UUID.randomUUID()).toAbsolutePath().resolve("db");
        return "jdbc:h2:file:" + file + ";AUTO_SERVER=TRUE;LOCK_TIMEOUT=10000";
    }
}
