package dev.hopbench.node;

import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.Response;

/**
 * The rest stack's echo route, as internal/transport/rest serves it: the
 * body is taken as bytes and decoded by the node, so its decoding is
 * timed where the Go node times it.
 */
@Path("/v1/{model}/echo")
public class Echo {
    @POST
    public Response echo(@PathParam("model") String model, @HeaderParam("Content-Type") String contentType, byte[] body) {
        try {
            byte[] out = Node.INSTANCE.echo(model, contentType, body);
            return Response.ok(out, "application/json").build();
        } catch (HopError e) {
            return Response.status(e.status).type("text/plain; charset=utf-8")
                    .header("X-Hopbench-Error", e.code).entity(e.code + ": " + e.getMessage() + "\n").build();
        }
    }
}
