package dev.turnstile.engine.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A host of its own for a child process, on this machine: a network namespace joined to this one
 * by a veth pair, in which the child runs ({@link #command()}), and the one way from it to a
 * database server on loopback — a forwarder listening on this side's end of the pair. {@link #cut()}
 * takes that link down: packets are dropped, not refused, so the child's connections hang as
 * behind a pulled cable, while the database sees them idle; {@link #heal()} brings it back and
 * TCP goes on where it stopped. Needs root (CI runs as root) and iproute2.
 */
final class NetworkPartition implements AutoCloseable {
    private static final AtomicInteger NEXT = new AtomicInteger();

    private final String namespace;
    private final String hostSide;
    private final String hostAddress;
    private final ServerSocket forwarder;
    private final String targetHost;
    private final int targetPort;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();

    /** A namespace whose only way out leads to the server of {@code jdbcUrl}. */
    NetworkPartition(String jdbcUrl) throws IOException, InterruptedException {
        int n = (int) (ProcessHandle.current().pid() % 200) * 50 + NEXT.incrementAndGet() % 50;
        this.namespace = "tsnet" + n;
        this.hostSide = "tsh" + n;
        String childSide = "tsc" + n;
        // 10.231.0.0/16 in /30s: one per namespace, unlikely to meet anything else on this machine.
        int third = n / 64;
        int fourth = (n % 64) * 4;
        this.hostAddress = "10.231." + third + "." + (fourth + 1);
        String childAddress = "10.231." + third + "." + (fourth + 2);
        ip("netns", "delete", namespace).ignoreFailure();
        ip("netns", "add", namespace).require();
        ip("link", "add", hostSide, "type", "veth", "peer", "name", childSide).require();
        ip("link", "set", childSide, "netns", namespace).require();
        ip("addr", "add", hostAddress + "/30", "dev", hostSide).require();
        ip("link", "set", hostSide, "up").require();
        ip("netns", "exec", namespace, "ip", "addr", "add", childAddress + "/30", "dev", childSide).require();
        ip("netns", "exec", namespace, "ip", "link", "set", childSide, "up").require();
        ip("netns", "exec", namespace, "ip", "link", "set", "lo", "up").require();
        URI server = URI.create(jdbcUrl.substring("jdbc:".length()));
        this.targetHost = server.getHost();
        this.targetPort = server.getPort();
        this.forwarder = new ServerSocket();
        forwarder.bind(new InetSocketAddress(InetAddress.getByName(hostAddress), 0));
        Thread acceptor = new Thread(this::accept, "partition-forwarder-" + namespace);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** {@code jdbcUrl} as the child reaches it: through the link to this side. */
    String url(String jdbcUrl) {
        return jdbcUrl.replaceFirst("//[^/]+/", "//" + hostAddress + ":" + forwarder.getLocalPort() + "/");
    }

    /** What runs a command inside the namespace. */
    List<String> command() {
        return List.of("ip", "netns", "exec", namespace);
    }

    /** The link down: every packet between the child and the database dropped, both ways. */
    void cut() throws IOException, InterruptedException {
        ip("link", "set", hostSide, "down").require();
    }

    /** The link up again. */
    void heal() throws IOException, InterruptedException {
        ip("link", "set", hostSide, "up").require();
    }

    /** Whether this machine lets the tests make namespaces (root, iproute2). */
    static boolean available() {
        try {
            return new ProcessBuilder("ip", "netns", "list").redirectErrorStream(true).start().waitFor() == 0
                    && ProcessHandle.current().info().user().map("root"::equals).orElse(false);
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        forwarder.close();
        for (Socket s : open) {
            s.close();
        }
        ip("netns", "delete", namespace).ignoreFailure(); // takes the pair with it
        ip("link", "delete", hostSide).ignoreFailure();
    }

    private void accept() {
        while (!forwarder.isClosed()) {
            try {
                Socket client = forwarder.accept();
                Socket server = new Socket(targetHost, targetPort);
                open.add(client);
                open.add(server);
                pump(client, server);
                pump(server, client);
            } catch (IOException e) {
                // closed
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[16384];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException ignored) {
                // one side closed
            } finally {
                try {
                    from.close();
                    to.close();
                } catch (IOException ignored) {
                    // closing
                }
            }
        }, "partition-pump");
        t.setDaemon(true);
        t.start();
    }

    private record Ip(int exit, String output, List<String> args) {
        void require() {
            if (exit != 0) {
                throw new IllegalStateException("ip " + String.join(" ", args) + " failed (" + exit + "): " + output);
            }
        }

        void ignoreFailure() {
        }
    }

    private static Ip ip(String... args) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of("ip"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim();
        return new Ip(p.waitFor(), output, List.of(args));
    }
}
