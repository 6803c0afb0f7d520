package dev.hopbench.node;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.google.protobuf.Message;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * A call's encoding (the Go side's codec.Compressed): JSON through Jackson
 * on the plain classes of Models (the thesis's way; a user's message in
 * the proto JSON mapping through JsonFormat), or Protobuf through
 * protobuf-java, each optionally gzipped, with the node's body limit held
 * after decompression too.
 */
record Wire(boolean proto, boolean gzip, long maxBytes) {
    static final String JSON_TYPE = "application/json", PROTO_TYPE = "application/x-protobuf";

    /** JSON is the Go node's encoding/json on generated structs: proto names, empty fields left out. */
    static final ObjectMapper JSON = JsonMapper.builder()
            .serializationInclusion(JsonInclude.Include.NON_DEFAULT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_PROPERTIES)
            .build();

    /** codec picks the codec of a Content-Type or Accept value; none or * / * means JSON, as rest.go's codecFor. */
    static boolean isProto(String mediaType) {
        if (mediaType == null || mediaType.isEmpty() || mediaType.equals("*/*")) {
            return false;
        }
        String base = mediaType.split(";", 2)[0].trim().toLowerCase();
        return switch (base) {
            case JSON_TYPE -> false;
            case PROTO_TYPE -> true;
            default -> throw HopError.badRequest("codec: no codec for content type \"" + mediaType + "\" (the JVM node speaks " + JSON_TYPE + " and " + PROTO_TYPE + ")");
        };
    }

    /** isGzip reads a Content-Encoding: none, identity or gzip. */
    static boolean isGzip(String encoding) {
        if (encoding == null || encoding.isEmpty() || encoding.equals("identity")) {
            return false;
        }
        if (encoding.equals("gzip")) {
            return true;
        }
        throw HopError.badRequest("codec: no compression for content encoding \"" + encoding + "\" (the JVM node takes gzip)");
    }

    String contentType() { return proto ? PROTO_TYPE : JSON_TYPE; }

    String name() { return (proto ? "proto" : "json") + (gzip ? "+gzip" : ""); }

    /** decode reads a body of model m: a protobuf-java message or the model's plain class. */
    Object decode(Model m, byte[] body) {
        byte[] raw = gzip ? gunzip(body) : body;
        try {
            return proto ? m.proto().getParserForType().parseFrom(raw) : m.readJson(raw);
        } catch (IOException e) { // protobuf's InvalidProtocolBufferException too
            throw HopError.badRequest("decoding the " + m.name() + " body as " + name() + ": " + e.getMessage());
        }
    }

    /** decodeAck reads a post's reply. */
    Object decodeAck(byte[] body) {
        byte[] raw = gzip ? gunzip(body) : body;
        try {
            return proto ? dev.hopbench.schema.v1.Ack.parseFrom(raw) : JSON.readValue(raw, Models.Ack.class);
        } catch (IOException e) {
            throw HopError.internal("decoding an ack as " + name() + ": " + e.getMessage());
        }
    }

    byte[] encode(Object msg) {
        byte[] raw;
        try {
            raw = proto ? ((Message) msg).toByteArray() : Model.writeJson(msg);
        } catch (IOException e) {
            throw HopError.internal("encoding the reply as " + name() + ": " + e.getMessage());
        }
        return gzip ? gzip(raw) : raw;
    }

    private byte[] gunzip(byte[] body) {
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
            byte[] out = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
            if (out.length > maxBytes) {
                throw HopError.tooLarge("codec: decompressed body exceeds the limit of " + maxBytes + " bytes");
            }
            return out;
        } catch (IOException e) {
            throw HopError.badRequest("decompressing the gzip body: " + e.getMessage());
        }
    }

    private static byte[] gzip(byte[] raw) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length / 2 + 64);
        try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            z.write(raw);
        } catch (IOException e) {
            throw HopError.internal("gzip: " + e.getMessage());
        }
        return out.toByteArray();
    }
}
