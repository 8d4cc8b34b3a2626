package dev.turnstile.engine.db;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The server of a shared H2 file (an {@link H2FileServer} process the engine starts): both its
 * ports — the engines' and H2's AUTO_SERVER one, for a host's own connections — listen on the
 * loopback interface only (H2 listens on every interface unless {@code h2.bindAddress} says
 * otherwise), and the engines' port opens no file but the one it serves.
 */
class H2ServerBindingTest {
    @Test
    void theServerListensOnLoopbackOnly_andServesOnlyItsFile() throws Exception {
        Path file = Path.of("target", "h2", "binding-" + UUID.randomUUID()).toAbsolutePath();
        try (ContentEngine ignored = ContentEngine.open(EngineConfig.builder().jdbcUrl("jdbc:h2:file:" + file + ";AUTO_SERVER=TRUE").build())) {
            int enginesPort = SharedH2File.serving(file).orElseThrow().port();
            int autoServerPort = port(property(Path.of(file + ".lock.db"), "server"));
            for (int port : List.of(enginesPort, autoServerPort)) {
                try (Socket loopback = new Socket("127.0.0.1", port)) {
                    assertThat(loopback.isConnected()).isTrue();
                }
                for (InetAddress other : otherAddresses()) {
                    assertThatThrownBy(() -> {
                        try (Socket s = new Socket()) {
                            s.connect(new InetSocketAddress(other, port), 2000);
                        }
                    }).as("no listener on %s port %d", other, port).isInstanceOf(IOException.class);
                }
            }
            String elsewhere = "jdbc:h2:tcp://127.0.0.1:" + enginesPort + "/binding-other-" + UUID.randomUUID();
            assertThatThrownBy(() -> DriverManager.getConnection(elsewhere, "sa", ""))
                    .as("a new database through the engines' port").isInstanceOf(SQLException.class)
                    .hasMessageContaining("not found");
        }
    }

    private static String property(Path file, String key) throws IOException {
        Properties p = new Properties();
        try (var in = Files.newInputStream(file)) {
            p.load(in);
        }
        assertThat(p.getProperty(key)).as("%s in %s", key, file).isNotNull();
        return p.getProperty(key);
    }

    private static int port(String hostAndPort) {
        return Integer.parseInt(hostAndPort.substring(hostAndPort.lastIndexOf(':') + 1));
    }

    /** This machine's addresses other than loopback (none in a sandbox without a network: then only the loopback check speaks). */
    private static List<InetAddress> otherAddresses() throws IOException {
        return Collections.list(NetworkInterface.getNetworkInterfaces()).stream()
                .flatMap(NetworkInterface::inetAddresses)
                .filter(a -> !a.isLoopbackAddress() && !a.isLinkLocalAddress() && a instanceof java.net.Inet4Address)
                .toList();
    }
}
