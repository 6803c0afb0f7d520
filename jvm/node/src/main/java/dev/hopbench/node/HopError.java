package dev.hopbench.node;

import io.grpc.Status;

import java.util.Map;

/**
 * A classified failure, named and answered as the Go node's transport.Code
 * is: by its HTTP status over REST (rest.go's statusOf) and its gRPC code
 * over gRPC (grpc.go's codeToGRPC), each table read both ways.
 */
final class HopError extends RuntimeException {
    /** The classes by HTTP status, with transport.Code's names. */
    private static final Map<Integer, String> NAMES = Map.of(
            400, "bad request", 404, "not found", 413, "too large",
            500, "internal", 503, "unavailable", 504, "deadline exceeded");
    private static final Map<Integer, Status.Code> GRPC = Map.of(
            400, Status.Code.INVALID_ARGUMENT, 404, Status.Code.NOT_FOUND, 413, Status.Code.RESOURCE_EXHAUSTED,
            500, Status.Code.INTERNAL, 503, Status.Code.UNAVAILABLE, 504, Status.Code.DEADLINE_EXCEEDED);

    final String code;
    final int status;

    /** HopError is the class of an HTTP status: one of NAMES' keys. */
    HopError(int status, String msg) {
        super(msg);
        this.code = NAMES.get(status);
        this.status = status;
    }

    static HopError badRequest(String msg) { return new HopError(400, msg); }

    static HopError notFound(String msg) { return new HopError(404, msg); }

    static HopError internal(String msg) { return new HopError(500, msg); }

    static HopError unavailable(String msg) { return new HopError(503, msg); }

    static HopError deadline(String msg) { return new HopError(504, msg); }

    static HopError tooLarge(String msg) { return new HopError(413, msg); }

    static HopError tooLarge(String what, long n, long limit) {
        return tooLarge(what + " of " + n + " bytes exceeds the limit of " + limit + " bytes");
    }

    /** ofStatus classifies a downstream's HTTP status as rest/client.go's codeOfStatus. */
    static HopError ofStatus(int status, String msg) {
        return new HopError(NAMES.containsKey(status) ? status : status >= 500 ? 500 : 400, msg);
    }

    /** ofGrpc classifies a downstream's gRPC status as grpc.go's fromStatus: cancelled is unavailable. */
    static HopError ofGrpc(Status s, String where) {
        String msg = where + ": " + s.getDescription();
        if (s.getCode() == Status.Code.CANCELLED) {
            return unavailable(msg);
        }
        for (var e : GRPC.entrySet()) {
            if (e.getValue() == s.getCode()) {
                return new HopError(e.getKey(), msg);
            }
        }
        return internal(msg);
    }

    /** grpcStatus is the gRPC status of the class, as grpc.go maps it. */
    Status grpcStatus() {
        return Status.fromCode(GRPC.get(status)).withDescription(getMessage());
    }
}
