package agent

import (
	"context"
	"fmt"
	"net"
	"time"

	"google.golang.org/grpc"

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
	gs := grpc.NewServer(opts...)
	agentv1.RegisterAgentServer(gs, s)
	served := make(chan error, 1)
	go func() { served <- gs.Serve(l) }()
	select {
	case err = <-served:
	case <-ctx.Done():
	}
	s.Close() // sessions end: their Hold calls return once their nodes are stopped
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
