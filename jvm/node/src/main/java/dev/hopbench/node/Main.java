package dev.hopbench.node;

import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.annotations.QuarkusMain;

import java.io.PrintStream;

/**
 * The JVM node's entry: reads the node contract's flags, points Quarkus at
 * the address to serve, and keeps standard output for the ready line alone.
 */
@QuarkusMain
public class Main {
    /** The real standard output, where the ready line goes. */
    static PrintStream announce;
    static Flags flags;

    public static void main(String... args) {
        try {
            flags = Flags.parse(args);
            if (flags.descriptors != null) {
                UserMessage.use(flags.descriptors, flags.message); // before Quarkus binds the gRPC services
            }
        } catch (IllegalArgumentException | java.io.IOException e) {
            System.err.println("hopbench jvm node: " + e.getMessage());
            System.exit(2);
        }
        System.setProperty("quarkus.http.host", flags.listenHost);
        System.setProperty("quarkus.http.port", Integer.toString(flags.listenPort));
        String limit = Long.toString(flags.maxBytes + 1024); // the node answers 413 itself, with its own message
        System.setProperty("quarkus.http.limits.max-body-size", limit);
        System.setProperty("quarkus.grpc.server.max-inbound-message-size", limit);
        announce = System.out;
        System.setOut(System.err); // no library may write to the contract's stdout
        Quarkus.run(App.class, args);
    }
}
