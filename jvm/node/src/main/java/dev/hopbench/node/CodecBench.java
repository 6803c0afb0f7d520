package dev.hopbench.node;

import com.google.protobuf.Message;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Jackson and protobuf-java marshal and unmarshal, timed with JMH on the
 * messages hopbench generated (a seeds file), as the node uses them: JSON
 * through the node's ObjectMapper on the plain classes, Protobuf through
 * the generated classes; a user's message (descriptors, the set hopbench
 * wrote) as a DynamicMessage, its JSON through JsonFormat. hopbench codec
 * --runtime jvm runs it. The protoConvert pair is Ensor's: the domain
 * object converted to or from the Protobuf message as part of the
 * operation (recipe only).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CodecBench {
    @Param({"recipe"})
    public String model;
    @Param({"1"})
    public long count;
    @Param({""})
    public String seeds;
    /** descriptors is the descriptor set of a user's message model names ("": a built-in model). */
    @Param({""})
    public String descriptors;

    private Object pojo;
    private Message proto;
    private byte[] json, protoBytes;
    private Model m;

    @Setup
    public void setup() throws IOException {
        if (!descriptors.isEmpty()) {
            UserMessage.use(descriptors, model);
        }
        Seeds s = Seeds.read(seeds);
        m = Model.lookup(model);
        pojo = s.reply(m, count, false);
        proto = (Message) s.reply(m, count, true);
        json = Model.writeJson(pojo);
        protoBytes = proto.toByteArray();
    }

    @Benchmark
    public byte[] jsonMarshal() throws IOException { return Model.writeJson(pojo); }

    @Benchmark
    public Object jsonUnmarshal() throws IOException { return m.readJson(json); }

    @Benchmark
    public byte[] protoMarshal() { return proto.toByteArray(); }

    @Benchmark
    public Object protoUnmarshal() throws IOException { return m.proto().getParserForType().parseFrom(protoBytes); }

    @Benchmark
    public byte[] protoConvertMarshal() {
        return pojo instanceof Models.RecipeList r ? Convert.toProto(r).toByteArray() : new byte[0];
    }

    @Benchmark
    public Object protoConvertUnmarshal() throws IOException {
        return m.name().equals("recipe") ? Convert.fromProto(dev.hopbench.schema.v1.RecipeList.parseFrom(protoBytes)) : null;
    }

    /**
     * Sizes prints, for each model and count given after the seeds file and
     * the descriptor set of a user's message ("" for none), the bytes of its
     * JSON and Protobuf encodings here.
     */
    public static void main(String... args) throws IOException {
        if (!args[1].isEmpty()) {
            UserMessage.use(args[1], args[2]);
        }
        Seeds s = Seeds.read(args[0]);
        for (int i = 2; i + 1 < args.length; i += 2) {
            Model m = Model.lookup(args[i]);
            long n = Long.parseLong(args[i + 1]);
            byte[] j = Model.writeJson(s.reply(m, n, false));
            byte[] p = ((Message) s.reply(m, n, true)).toByteArray();
            System.out.println("{\"model\":\"" + m.name() + "\",\"count\":" + n + ",\"json\":" + j.length + ",\"proto\":" + p.length + "}");
        }
    }
}
