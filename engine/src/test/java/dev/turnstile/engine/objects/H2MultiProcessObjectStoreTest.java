package dev.turnstile.engine.objects;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

class H2MultiProcessObjectStoreTest extends AbstractMultiProcessObjectStoreTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.h2("multiprocess");
    }

    /** The H2 file server's log: a server started twice during a run shows here (issue 16's lost update). */
    @Override
    protected String serverLog() {
        Path log = Path.of("target", "h2", "multiprocess.server.log");
        try {
            return "; " + log + ":\n" + Files.readString(log);
        } catch (IOException e) {
            return "; no " + log + ": " + e;
        }
    }
}
