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

    static HopError tooLarge(long n, long limit) {
        return new HopError("too large", 413, "request body of " + n + " bytes exceeds the limit of " + limit + " bytes");
    }
}
