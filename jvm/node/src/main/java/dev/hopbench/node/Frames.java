package dev.hopbench.node;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.WireFormat;
import dev.hopbench.schema.v1.GetRequest;
import dev.hopbench.schema.v1.Payload;
import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.Status;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Map;

/**
 * hopbench.v1.Hop's frames as internal/transport/grpc moves them: raw
 * bytes, a model's encoding wrapped in the Payload field named after the
 * model, so the node's decode and encode are its own, timed, as over REST.
 */
final class Frames {
    private Frames() {}

    static final String SERVICE = "hopbench.v1.Hop";

    /** A model's body, unwrapped from its Payload. */
    record Body(String model, byte[] body) {}

    static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) { return new Bytes(value); }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw Status.INTERNAL.withDescription("reading a frame: " + e).asRuntimeException();
            }
        }
    };

    /** Bytes is a frame's stream as gRPC's transports drain it (Vert.x's bridge requires Drainable). */
    private static final class Bytes extends ByteArrayInputStream implements Drainable, KnownLength {
        Bytes(byte[] b) { super(b); }

        @Override
        public int drainTo(OutputStream target) throws IOException {
            int n = count - pos;
            target.write(buf, pos, n);
            pos = count;
            return n;
        }
    }

    /**
     * A service and how its bodies travel (grpc.go's family): hopbench.v1.Hop
     * wraps each model's encoding in its Payload field; a user's message's
     * service (hopbench.user.NameService) carries its list bare, its model
     * (model) fixed.
     */
    record Family(String service, String model, Map<String, MethodDescriptor<byte[], byte[]>> methods) {
        Family(String service, String model) {
            this(service, model, Map.of("get", build(service, "Get"), "post", build(service, "Post"), "echo", build(service, "Echo")));
        }

        /** method is the method of an operation: get, post or echo. */
        MethodDescriptor<byte[], byte[]> method(String op) { return methods.get(op); }

        byte[] wrap(String model, byte[] body) { return this.model != null ? body : Frames.wrap(model, body); }

        Body unwrap(byte[] b) { return model != null ? new Body(model, b) : Frames.unwrap(b); }
    }

    static final Family HOP = new Family(SERVICE, null);

    /** user is the user's message's service (UserMessage), or null. */
    private static volatile Family user;

    static void useFamily(Family f) { user = f; }

    static Family user() { return user; }

    /** familyOf is the service that carries model. */
    static Family familyOf(String model) {
        Family u = user;
        return u != null && u.model().equals(model) ? u : HOP;
    }

    private static MethodDescriptor<byte[], byte[]> build(String service, String name) {
        return MethodDescriptor.<byte[], byte[]>newBuilder()
                .setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(service, name))
                .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();
    }

    static byte[] getRequest(String model, long count) {
        return GetRequest.newBuilder().setModel(model).setCount(count).build().toByteArray();
    }

    /** wrap puts a model's encoding into the Payload field named after it. */
    static byte[] wrap(String model, byte[] body) {
        int field = Model.lookup(model).payloadField();
        byte[] out = new byte[CodedOutputStream.computeByteArraySize(field, body)];
        CodedOutputStream o = CodedOutputStream.newInstance(out);
        try {
            o.writeByteArray(field, body);
            o.checkNoSpaceLeft();
        } catch (IOException e) {
            throw HopError.internal("wrapping a " + model + " frame: " + e);
        }
        return out;
    }

    /** unwrap reads a Payload that sets exactly one field: the model and its body. */
    static Body unwrap(byte[] b) {
        if (b.length == 0) {
            throw HopError.badRequest("empty Payload: set the field of one model (user, payment, ...)");
        }
        try {
            CodedInputStream in = CodedInputStream.newInstance(b);
            int tag = in.readTag();
            FieldDescriptor fd = Payload.getDescriptor().findFieldByNumber(WireFormat.getTagFieldNumber(tag));
            if (fd == null || WireFormat.getTagWireType(tag) != WireFormat.WIRETYPE_LENGTH_DELIMITED) {
                throw HopError.badRequest("malformed Payload: field " + WireFormat.getTagFieldNumber(tag) + " is not a model");
            }
            byte[] body = in.readByteArray();
            if (!in.isAtEnd()) {
                throw HopError.badRequest("malformed Payload: bytes after the " + fd.getName() + " field; set exactly one model");
            }
            return new Body(fd.getName(), body);
        } catch (IOException e) {
            throw HopError.badRequest("malformed Payload: " + e.getMessage());
        }
    }
}
