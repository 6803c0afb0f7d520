package agent

import (
	"context"
	"fmt"
	"net"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"

	agentv1 "github.com/hopbench/hopbench/schema/hopbench/agent/v1"
)

// Serve serves s on l until ctx ends, taking only coordinators auth
// authenticates; then it stops every session's processes.
func Serve(ctx context.Context, s *Server, l net.Listener, auth Auth) error {
	opts, err := auth.ServerOptions()
	if err != nil {
		l.Close()
		return err
	}
	// A coordinator that vanishes without closing its connection (a cut
	// network) is found out by pings within about 30 s, and its session
	// ended, so that nothing it started outlives it for long.
	opts = append(opts, grpc.KeepaliveParams(keepalive.ServerParameters{Time: 15 * time.Second, Timeout: 15 * time.Second}),
		grpc.MaxRecvMsgSize(maxHoldBytes)) // a session brings its users' messages whole
	gs := grpc.NewServer(opts...)
	agentv1.RegisterAgentServer(gs, s)
	served := make(chan error, 1)
	go func() { served <- gs.Serve(l) }()
	select {
	case err = <-served:
	case <-ctx.Done():
	}
	s.Close() // every session's processes stop; their Hold calls end with the server
	stopped := make(chan struct{})
	go func() { gs.GracefulStop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		gs.Stop()
	}
	if err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	return nil
}
