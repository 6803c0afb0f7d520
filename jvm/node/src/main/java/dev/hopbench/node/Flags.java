package dev.hopbench.node;

import java.util.List;

/** The node contract's flags (schema/NODE-API.md), as hopbench node takes them. */
final class Flags {
    String stack = "rest";
    String listenHost = "127.0.0.1";
    int listenPort = 7070;
    String adminHost = "127.0.0.1";
    int adminPort = 0;
    boolean announce;
    long maxBytes = 64L << 20;

    /** The stacks this node serves so far. */
    static final List<String> SERVED = List.of("rest", "rest+json");

    static Flags parse(String[] args) {
        Flags f = new Flags();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--announce" -> f.announce = true;
                case "--stack" -> f.stack = value(args, ++i, a);
                case "--listen" -> {
                    String[] hp = hostPort(value(args, ++i, a), a);
                    f.listenHost = hp[0];
                    f.listenPort = Integer.parseInt(hp[1]);
                }
                case "--admin" -> {
                    String[] hp = hostPort(value(args, ++i, a), a);
                    f.adminHost = hp[0];
                    f.adminPort = Integer.parseInt(hp[1]);
                }
                case "--max-bytes" -> f.maxBytes = Long.parseLong(value(args, ++i, a));
                case "--downstream" -> throw new IllegalArgumentException(
                        "--downstream: the JVM node makes no downstream calls yet; put it at the end of a chain");
                default -> throw new IllegalArgumentException("unknown flag " + a + " (known: --stack, --listen, --admin, --announce, --max-bytes)");
            }
        }
        if (!SERVED.contains(f.stack)) {
            throw new IllegalArgumentException("stack " + f.stack + ": the JVM node serves " + SERVED + " so far; run hopbench node for the others");
        }
        f.stack = "rest"; // canonical, as transport.ParseStack names it
        return f;
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args[i];
    }

    private static String[] hostPort(String s, String flag) {
        int colon = s.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException(flag + " " + s + ": want host:port, e.g. 127.0.0.1:0");
        }
        return new String[] {s.substring(0, colon), s.substring(colon + 1)};
    }
}
