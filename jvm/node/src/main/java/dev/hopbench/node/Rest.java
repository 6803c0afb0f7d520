package dev.hopbench.node;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Response;

/**
 * The rest stack's routes, as internal/transport/rest serves them: GET
 * /v1/{model}?count=N, POST /v1/{model} and POST /v1/{model}/echo. Bodies
 * are taken as bytes and decoded by the node, so decoding is timed where
 * the Go node times it (RESTEasy decoded before the method in the thesis).
 */
@Path("/v1/{model}")
public class Rest {
    @GET
    public Response get(@PathParam("model") String model, @QueryParam("count") String count,
                        @HeaderParam("Accept") String accept, @HeaderParam("Accept-Encoding") String acceptEncoding) {
        try {
            long n = parseCount(count);
            Wire w = new Wire(Wire.isProto(accept), "gzip".equals(acceptEncoding), Node.INSTANCE.maxBytes());
            return reply(w, Node.INSTANCE.serve(new Node.Call("get", model, n, w, null)));
        } catch (HopError e) {
            return error(e);
        }
    }

    @POST
    public Response post(@PathParam("model") String model, @HeaderParam("Content-Type") String type,
                         @HeaderParam("Content-Encoding") String encoding, byte[] body) {
        return call("post", model, type, encoding, body);
    }

    @POST
    @Path("echo")
    public Response echo(@PathParam("model") String model, @HeaderParam("Content-Type") String type,
                         @HeaderParam("Content-Encoding") String encoding, byte[] body) {
        return call("echo", model, type, encoding, body);
    }

    private static Response call(String op, String model, String type, String encoding, byte[] body) {
        try {
            Wire w = new Wire(Wire.isProto(type), Wire.isGzip(encoding), Node.INSTANCE.maxBytes());
            return reply(w, Node.INSTANCE.serve(new Node.Call(op, model, 0, w, body == null ? new byte[0] : body)));
        } catch (HopError e) {
            return error(e);
        }
    }

    private static long parseCount(String s) {
        try {
            long n = Long.parseLong(s == null ? "" : s);
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw HopError.badRequest("query parameter count=\"" + (s == null ? "" : s) + "\": want a whole number of items, e.g. ?count=10");
    }

    private static Response reply(Wire w, byte[] out) {
        Response.ResponseBuilder r = Response.ok(out, w.contentType()).header("Content-Length", out.length);
        return w.gzip() ? r.header("Content-Encoding", "gzip").build() : r.build();
    }

    private static Response error(HopError e) {
        return Response.status(e.status).type("text/plain; charset=utf-8")
                .header("X-Hopbench-Error", e.code).entity(e.code + ": " + e.getMessage() + "\n").build();
    }
}
