package dev.hopbench.node;

import io.grpc.BindableService;
import io.grpc.ServerServiceDefinition;
import io.quarkus.grpc.GrpcService;

/**
 * A user's message's service (hopbench.user.NameService, --descriptors),
 * served as GrpcHop serves hopbench.v1.Hop. Quarkus binds its services at
 * start, after Main has read the flags; with no user's message this is a
 * service of no methods, which answers nothing.
 */
@GrpcService
public class UserHop implements BindableService {
    @Override
    public ServerServiceDefinition bindService() {
        Frames.Family f = Frames.user();
        return f == null ? ServerServiceDefinition.builder("hopbench.user.None").build() : GrpcHop.bind(f);
    }
}
