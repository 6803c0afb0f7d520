package dev.hopbench.node;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/** The node contract's admin endpoint: /ready, /reset, /stats, on a port of its own. */
final class Admin {
    private final HttpServer server;

    private Admin(HttpServer server) { this.server = server; }

    static Admin start(String host, int port) throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress(host, port), 64);
        s.createContext("/ready", ex -> reply(ex, 200, "text/plain", "ready " + Main.flags.listenHost + "\n"));
        s.createContext("/reset", ex -> {
            if (!"POST".equals(ex.getRequestMethod())) {
                reply(ex, 405, "text/plain", "POST /reset\n");
                return;
            }
            Node.INSTANCE.reset();
            ex.sendResponseHeaders(204, -1);
            ex.close();
        });
        s.createContext("/stats", ex -> reply(ex, 200, "application/json", Node.JSON_PLAIN.writeValueAsString(Node.INSTANCE.stats())));
        s.start();
        return new Admin(s);
    }

    String address() {
        InetSocketAddress a = server.getAddress();
        return a.getHostString() + ":" + a.getPort();
    }

    void stop() { server.stop(0); }

    private static void reply(HttpExchange ex, int status, String type, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(status, b.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(b);
        }
    }
}
