package dev.hopbench.node;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The next node of a chain, called as the Go node's transport clients call
 * it (rest/client.go, grpc.go): the same routes, headers and frames, so a
 * Go node and a JVM node can call each other.
 */
interface Downstream extends AutoCloseable {
    /** DEADLINE bounds a downstream call, as the generator's timeout bounds a call. */
    Duration DEADLINE = Duration.ofSeconds(30);

    /** call sends c and returns the reply's bytes in c's encoding. */
    byte[] call(Node.Call c);

    @Override
    void close();

    static Downstream of(String stack, String addr, long maxBytes) {
        return stack.startsWith("grpc") ? new Grpc(addr, stack.endsWith("+gzip"), maxBytes) : new Rest(addr);
    }

    /** Rest calls over HTTP/1.1 with the JDK's client, connections kept. */
    final class Rest implements Downstream {
        private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        private final String base;

        Rest(String addr) { base = "http://" + addr + "/v1/"; }

        @Override
        public byte[] call(Node.Call c) {
            HttpRequest.Builder b = HttpRequest.newBuilder().timeout(DEADLINE).header("Accept", c.wire().contentType());
            String path = base + c.model();
            if (c.op().equals("get")) {
                b.uri(URI.create(path + "?count=" + c.count())).GET();
            } else {
                b.uri(URI.create(c.op().equals("echo") ? path + "/echo" : path))
                        .header("Content-Type", c.wire().contentType())
                        .POST(HttpRequest.BodyPublishers.ofByteArray(c.body()));
                if (c.wire().gzip()) {
                    b.header("Content-Encoding", "gzip");
                }
            }
            if (c.wire().gzip()) {
                b.header("Accept-Encoding", "gzip");
            }
            try {
                HttpResponse<byte[]> r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
                if (r.statusCode() != 200) {
                    throw HopError.ofStatus(r.statusCode(), "downstream " + base + ": " + new String(r.body(), StandardCharsets.UTF_8).trim());
                }
                return r.body();
            } catch (HttpTimeoutException e) {
                throw HopError.deadline("downstream " + base + ": " + e.getMessage());
            } catch (IOException e) {
                throw HopError.unavailable("downstream " + base + ": " + e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw HopError.unavailable("downstream " + base + ": interrupted");
            }
        }

        @Override
        public void close() {} // Java 17's HttpClient has no close; its connections end with the process
    }

    /** Grpc calls hopbench.v1.Hop (a user's message: its service) over one plaintext HTTP/2 channel, frames as bytes. */
    final class Grpc implements Downstream {
        private final ManagedChannel channel;
        private final String addr;
        private final boolean gzip;

        Grpc(String addr, boolean gzip, long maxBytes) {
            this.addr = addr;
            this.gzip = gzip;
            this.channel = NettyChannelBuilder.forTarget(addr).usePlaintext()
                    .maxInboundMessageSize((int) Math.min(Integer.MAX_VALUE, maxBytes)).build();
        }

        @Override
        public byte[] call(Node.Call c) {
            CallOptions opts = CallOptions.DEFAULT.withDeadlineAfter(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            if (gzip) {
                opts = opts.withCompression("gzip");
            }
            Frames.Family f = Frames.familyOf(c.model());
            byte[] req = c.op().equals("get") ? Frames.getRequest(c.model(), c.count()) : f.wrap(c.model(), c.body());
            try {
                byte[] reply = ClientCalls.blockingUnaryCall(channel, f.method(c.op()), opts, req);
                return c.op().equals("post") ? reply : f.unwrap(reply).body();
            } catch (StatusRuntimeException e) {
                throw HopError.ofGrpc(e.getStatus(), "downstream " + addr);
            }
        }

        @Override
        public void close() { channel.shutdownNow(); }
    }
}
