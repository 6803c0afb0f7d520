package dev.hopbench.node;

import com.fasterxml.jackson.databind.util.ByteBufferBackedInputStream;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.WireFormat;
import dev.hopbench.schema.v1.Payload;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;

/**
 * The get replies hopbench generated for this node (--seeds FILE, a stream
 * of delimited Seed messages): the same data the Go node's generator
 * gives. The file is mapped, not read into the heap, and a get parses its
 * reply from it (protobuf-java or Jackson into the model's plain class) as
 * the Go node generates its reply on each get: the reply is the get's
 * work, and the heap holds only replies in flight, so a node's memory is
 * its work's and not a store of every count a run asks for.
 */
final class Seeds {
    static final Seeds NONE = new Seeds(Map.of(), ByteBuffer.allocate(0), null);

    /** Where a seed's two encodings lie in the file. */
    private record Entry(int[] payload, int[] json, int[] items) {}

    private final Map<String, Entry> byKey;
    private final ByteBuffer file;
    private final String path;

    private Seeds(Map<String, Entry> byKey, ByteBuffer file, String path) {
        this.byKey = byKey;
        this.file = file;
        this.path = path;
    }

    static Seeds read(String path) throws IOException {
        ByteBuffer file;
        try (FileChannel ch = FileChannel.open(Path.of(path), StandardOpenOption.READ)) {
            if (ch.size() > Integer.MAX_VALUE) {
                throw new IOException("seeds " + path + ": " + ch.size() + " bytes, over the 2 GiB a node maps; ask for fewer or smaller gets");
            }
            file = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
        }
        Map<String, Entry> m = new HashMap<>();
        CodedInputStream in = CodedInputStream.newInstance(file.duplicate());
        in.setSizeLimit(Integer.MAX_VALUE);
        while (!in.isAtEnd()) {
            int limit = in.pushLimit(in.readRawVarint32());
            String model = "";
            long count = -1;
            int[] payload = null, json = null, items = null;
            while (!in.isAtEnd()) {
                int tag = in.readTag();
                switch (tag) {
                    case 1 << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED -> model = in.readString();
                    case 2 << 3 | WireFormat.WIRETYPE_VARINT -> count = in.readInt64();
                    case 4 << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED -> payload = skipBytes(in);
                    case 5 << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED -> json = skipBytes(in);
                    case 6 << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED -> items = skipBytes(in);
                    default -> in.skipField(tag);
                }
            }
            in.popLimit(limit);
            Model.lookup(model); // an unknown model is refused at start, not at the first get
            if (count < 0 || (payload == null && items == null) || json == null) {
                throw new IOException("seeds " + path + ": the seed of " + model + " lacks its count, payload (or items) or json; hopbench writes them (jvm.WriteSeeds)");
            }
            m.put(key(model, count), new Entry(payload, json, items));
        }
        return new Seeds(m, file, path);
    }

    /** skipBytes passes a length-delimited field, returning where its bytes lie. */
    private static int[] skipBytes(CodedInputStream in) throws IOException {
        int n = in.readRawVarint32();
        int at = in.getTotalBytesRead();
        in.skipRawBytes(n);
        return new int[] {at, n};
    }

    /** reply is the seeded get reply of count items of m, as proto or as the plain class. */
    Object reply(Model m, long count, boolean proto) {
        Entry e = byKey.get(key(m.name(), count));
        if (e == null) {
            throw HopError.badRequest("get " + count + " " + m.name() + ": not seeded; hopbench hands the JVM node the replies a run asks for"
                    + (path == null ? " (--seeds FILE)" : " (" + path + " holds " + byKey.size() + ")"));
        }
        try {
            if (proto && e.items() != null) {
                return m.proto().getParserForType().parseFrom(slice(e.items()));
            }
            if (proto) {
                return unwrap(Payload.parseFrom(slice(e.payload())), m);
            }
            return m.readJson(new ByteBufferBackedInputStream(slice(e.json())));
        } catch (IOException ex) {
            throw HopError.internal("reading the seeded " + m.name() + "×" + count + " from " + path + ": " + ex.getMessage());
        }
    }

    int size() { return byKey.size(); }

    private ByteBuffer slice(int[] at) { return file.slice(at[0], at[1]); }

    private static Message unwrap(Payload p, Model m) {
        FieldDescriptor fd = Payload.getDescriptor().findFieldByNumber(m.payloadField());
        if (!p.hasField(fd)) {
            throw HopError.internal("seed of " + m.name() + " carries no " + fd.getName() + " field");
        }
        return (Message) p.getField(fd);
    }

    private static String key(String model, long count) { return model + "/" + count; }
}
