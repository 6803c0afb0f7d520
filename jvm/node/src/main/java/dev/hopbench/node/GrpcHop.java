package dev.hopbench.node;

import io.grpc.BindableService;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.quarkus.grpc.GrpcService;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * hopbench.v1.Hop served as internal/transport/grpc serves it: frames as
 * bytes, a model's Protobuf body unwrapped from its Payload field, decoded
 * and encoded by the node. Calls run off the event loop (a downstream call
 * blocks); --max-in-flight bounds them. UserHop serves a user's message's
 * service the same way.
 */
@GrpcService
public class GrpcHop implements BindableService {
    private static final ExecutorService WORKERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "hop-grpc");
        t.setDaemon(true);
        return t;
    });

    @Override
    public ServerServiceDefinition bindService() { return bind(Frames.HOP); }

    /** bind is f's service, its calls served by the node. */
    static ServerServiceDefinition bind(Frames.Family f) {
        ServerServiceDefinition.Builder b = ServerServiceDefinition.builder(f.service());
        for (String op : new String[] {"get", "post", "echo"}) {
            b.addMethod(f.method(op), ServerCalls.asyncUnaryCall((req, out) -> WORKERS.execute(() -> serve(f, op, req, out))));
        }
        return b.build();
    }

    private static void serve(Frames.Family f, String op, byte[] req, StreamObserver<byte[]> out) {
        if (Main.flags.gzip) {
            ((ServerCallStreamObserver<byte[]>) out).setCompression("gzip");
        }
        Wire w = new Wire(true, false, Node.INSTANCE.maxBytes());
        try {
            byte[] reply;
            if (op.equals("get")) {
                var g = parseGet(req);
                if (f.model() != null && !f.model().equals(g.getModel())) {
                    throw HopError.badRequest(f.service() + " serves " + f.model() + ", not \"" + g.getModel() + "\"");
                }
                reply = f.wrap(g.getModel(), Node.INSTANCE.serve(new Node.Call(op, g.getModel(), g.getCount(), w, null)));
            } else {
                Frames.Body in = f.unwrap(req);
                byte[] got = Node.INSTANCE.serve(new Node.Call(op, in.model(), 0, w, in.body()));
                reply = op.equals("post") ? got : f.wrap(in.model(), got);
            }
            out.onNext(reply);
            out.onCompleted();
        } catch (HopError e) {
            out.onError(e.grpcStatus().asRuntimeException());
        } catch (RuntimeException e) {
            out.onError(io.grpc.Status.INTERNAL.withDescription(e.toString()).asRuntimeException());
        }
    }

    private static dev.hopbench.schema.v1.GetRequest parseGet(byte[] req) {
        try {
            return dev.hopbench.schema.v1.GetRequest.parseFrom(req);
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            throw HopError.badRequest("decoding GetRequest: " + e.getMessage());
        }
    }
}
