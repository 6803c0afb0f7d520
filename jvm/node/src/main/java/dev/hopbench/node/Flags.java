package dev.hopbench.node;

import java.util.ArrayList;
import java.util.List;

/** The node contract's flags (schema/NODE-API.md), as hopbench node takes them. */
final class Flags {
    /** The stacks this node serves: rest with JSON or Protobuf, gRPC; each with or without gzip. */
    static final String SERVED = "rest, rest+proto, rest+gzip (rest+json+gzip), rest+proto+gzip, grpc, grpc+gzip";

    String stack = "rest";
    String transport = "rest";
    boolean proto, gzip;
    String listenHost = "127.0.0.1";
    int listenPort = 7070;
    String adminHost = "127.0.0.1";
    int adminPort = 0;
    boolean announce, cache;
    long maxBytes = 64L << 20;
    int maxInFlight = 1024;
    String seeds;
    /** descriptors and message: a user's message (UserMessage), from the descriptor set hopbench wrote. */
    String descriptors, message;
    List<String> downstream = List.of();

    static Flags parse(String[] args) {
        Flags f = new Flags();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--announce" -> f.announce = true;
                case "--cache" -> f.cache = true;
                case "--stack" -> f.stack = value(args, ++i, a);
                case "--listen" -> {
                    String[] hp = hostPort(value(args, ++i, a), a);
                    f.listenHost = hp[0];
                    f.listenPort = port(hp[1], a);
                }
                case "--admin" -> {
                    String[] hp = hostPort(value(args, ++i, a), a);
                    f.adminHost = hp[0];
                    f.adminPort = port(hp[1], a);
                }
                case "--max-bytes" -> f.maxBytes = positive(value(args, ++i, a), a);
                case "--max-in-flight" -> f.maxInFlight = (int) Math.min(1 << 20, positive(value(args, ++i, a), a));
                case "--seeds" -> f.seeds = value(args, ++i, a);
                case "--downstream" -> f.downstream = downstream(value(args, ++i, a));
                case "--descriptors" -> f.descriptors = value(args, ++i, a);
                case "--message" -> f.message = value(args, ++i, a);
                default -> throw new IllegalArgumentException("unknown flag " + a
                        + " (known: --stack, --listen, --admin, --announce, --cache, --downstream, --max-bytes, --max-in-flight, --seeds, --descriptors, --message)");
            }
        }
        if ((f.descriptors == null) != (f.message == null)) {
            throw new IllegalArgumentException("--descriptors and --message go together: the descriptor set of a user's message and its full name, e.g. shop.Order");
        }
        f.canonicalise();
        return f;
    }

    /** canonicalise reads the stack as transport.ParseStack does and names it as Stack.String. */
    private void canonicalise() {
        String[] parts = stack.toLowerCase().trim().split("\\+");
        transport = parts[0];
        if (!transport.equals("rest") && !transport.equals("grpc")) {
            throw new IllegalArgumentException("stack " + stack + ": the JVM node serves " + SERVED + "; run hopbench node for the others");
        }
        proto = transport.equals("grpc");
        for (int i = 1; i < parts.length; i++) {
            switch (parts[i]) {
                case "json" -> proto = false;
                case "proto" -> proto = true;
                case "gzip" -> gzip = true;
                case "none" -> gzip = false;
                default -> throw new IllegalArgumentException("stack " + stack + ": the JVM node serves " + SERVED + ", not " + parts[i]);
            }
        }
        if (transport.equals("grpc") && !proto) {
            throw new IllegalArgumentException("stack " + stack + ": grpc carries proto bodies only");
        }
        stack = transport + (transport.equals("rest") && proto ? "+proto" : "") + (gzip ? "+gzip" : "");
    }

    private static List<String> downstream(String s) {
        List<String> out = new ArrayList<>();
        for (String d : s.split(",")) {
            if (!d.isBlank()) {
                hostPort(d.trim(), "--downstream");
                out.add(d.trim());
            }
        }
        if (out.size() > 1) {
            throw new IllegalArgumentException("--downstream " + s + ": the JVM node calls one downstream node (chains); fan-out (tree topologies) needs the Go node");
        }
        return List.copyOf(out);
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args[i];
    }

    private static long positive(String s, String flag) {
        try {
            long n = Long.parseLong(s);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new IllegalArgumentException(flag + " " + s + ": want a whole number above 0");
    }

    private static int port(String s, String flag) {
        try {
            int p = Integer.parseInt(s);
            if (p >= 0 && p <= 65535) {
                return p;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new IllegalArgumentException(flag + ": port " + s + " is not 0 to 65535");
    }

    private static String[] hostPort(String s, String flag) {
        int colon = s.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException(flag + " " + s + ": want host:port, e.g. 127.0.0.1:0");
        }
        return new String[] {s.substring(0, colon), s.substring(colon + 1)};
    }
}
