package dev.turnstile.engine.db;

import dev.turnstile.engine.ChildJvm;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The embedded default's AUTO_SERVER, as a fresh process starts it: it listens on the loopback
 * interface only, so another machine cannot reach the H2 file's server (H2 listens on every
 * interface unless {@code h2.bindAddress} says otherwise).
 */
class H2ServerBindingTest {
    @Test
    void theServingProcessListensOnLoopbackOnly() throws Exception {
        Path file = Path.of("target", "h2", "binding-" + UUID.randomUUID()).toAbsolutePath();
        try (ChildJvm serving = ChildJvm.start(H2ServeWorker.class, "jdbc:h2:file:" + file + ";AUTO_SERVER=TRUE")) {
            serving.awaitLine(l -> l.startsWith("READY"), Duration.ofSeconds(60));
            Properties lock = new Properties();
            try (var in = Files.newInputStream(Path.of(file + ".lock.db"))) {
                lock.load(in);
            }
            String server = lock.getProperty("server");
            assertThat(server).as("the lock file names the server").isNotNull();
            int port = Integer.parseInt(server.substring(server.lastIndexOf(':') + 1));
            try (Socket loopback = new Socket("127.0.0.1", port)) {
                assertThat(loopback.isConnected()).isTrue();
            }
            for (InetAddress other : otherAddresses()) {
                assertThatThrownBy(() -> {
                    try (Socket s = new Socket()) {
                        s.connect(new InetSocketAddress(other, port), 2000);
                    }
                }).as("no listener on " + other).isInstanceOf(IOException.class);
            }
        }
    }

    /** This machine's addresses other than loopback (none in a sandbox without a network: then only the lock file speaks). */
    private static List<InetAddress> otherAddresses() throws IOException {
        return Collections.list(NetworkInterface.getNetworkInterfaces()).stream()
                .flatMap(NetworkInterface::inetAddresses)
                .filter(a -> !a.isLoopbackAddress() && !a.isLinkLocalAddress() && a instanceof java.net.Inet4Address)
                .toList();
    }
}
