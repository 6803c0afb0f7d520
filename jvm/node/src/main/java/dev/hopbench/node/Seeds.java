package dev.hopbench.node;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import dev.hopbench.schema.v1.Payload;
import dev.hopbench.schema.v1.Seed;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The get replies hopbench generated for this node (--seeds FILE, a stream
 * of delimited Seed messages): the same data the Go node's generator
 * gives, held both as a protobuf-java message and as the model's plain
 * class, read once at start so a get's work is only the lookup.
 */
final class Seeds {
    static final Seeds NONE = new Seeds(Map.of(), null);

    private record Entry(Message proto, Object pojo) {}

    private final Map<String, Entry> byKey;
    private final String file;

    private Seeds(Map<String, Entry> byKey, String file) {
        this.byKey = byKey;
        this.file = file;
    }

    static Seeds read(String file) throws IOException {
        Map<String, Entry> m = new HashMap<>();
        try (InputStream in = new BufferedInputStream(Files.newInputStream(Path.of(file)))) {
            Seed s;
            while ((s = Seed.parseDelimitedFrom(in)) != null) {
                Model model = Model.lookup(s.getModel());
                Message proto = unwrap(s.getPayload(), model);
                Object pojo = Wire.JSON.readValue(s.getJson().toByteArray(), model.pojo());
                m.put(key(model.name(), s.getCount()), new Entry(proto, pojo));
            }
        }
        return new Seeds(m, file);
    }

    /** reply is the seeded get reply of count items of m, as proto or as the plain class. */
    Object reply(Model m, long count, boolean proto) {
        Entry e = byKey.get(key(m.name(), count));
        if (e == null) {
            throw HopError.badRequest("get " + count + " " + m.name() + ": not seeded; hopbench hands the JVM node the replies a run asks for"
                    + (file == null ? " (--seeds FILE)" : " (" + file + " holds " + byKey.size() + ")"));
        }
        return proto ? e.proto() : e.pojo();
    }

    int size() { return byKey.size(); }

    private static Message unwrap(Payload p, Model m) {
        FieldDescriptor fd = Payload.getDescriptor().findFieldByNumber(m.payloadField());
        if (!p.hasField(fd)) {
            throw new IllegalArgumentException("seed of " + m.name() + " carries no " + fd.getName() + " field");
        }
        return (Message) p.getField(fd);
    }

    private static String key(String model, long count) { return model + "/" + count; }
}
