package dev.hopbench.node;

/** A classified failure, named and answered as the Go node's transport.Code is. */
final class HopError extends RuntimeException {
    final String code;
    final int status;

    HopError(String code, int status, String msg) {
        super(msg);
        this.code = code;
        this.status = status;
    }

    static HopError badRequest(String msg) { return new HopError("bad request", 400, msg); }

    static HopError notFound(String msg) { return new HopError("not found", 404, msg); }

    static HopError internal(String msg) { return new HopError("internal", 500, msg); }

    static HopError unavailable(String msg) { return new HopError("unavailable", 503, msg); }

    static HopError tooLarge(String what, long n, long limit) {
        return new HopError("too large", 413, what + " of " + n + " bytes exceeds the limit of " + limit + " bytes");
    }

    /** ofStatus classifies a downstream's HTTP status as rest/client.go's codeOfStatus. */
    static HopError ofStatus(int status, String msg) {
        return switch (status) {
            case 400 -> badRequest(msg);
            case 404 -> notFound(msg);
            case 413 -> new HopError("too large", 413, msg);
            case 503 -> unavailable(msg);
            case 504 -> new HopError("deadline exceeded", 504, msg);
            default -> status >= 500 ? internal(msg) : badRequest(msg);
        };
    }

    /** grpcStatus is the gRPC status code of the class, as grpc.go maps it. */
    io.grpc.Status grpcStatus() {
        io.grpc.Status s = switch (status) {
            case 400 -> io.grpc.Status.INVALID_ARGUMENT;
            case 404 -> io.grpc.Status.NOT_FOUND;
            case 413 -> io.grpc.Status.RESOURCE_EXHAUSTED;
            case 503 -> io.grpc.Status.UNAVAILABLE;
            case 504 -> io.grpc.Status.DEADLINE_EXCEEDED;
            default -> io.grpc.Status.INTERNAL;
        };
        return s.withDescription(getMessage());
    }
}
