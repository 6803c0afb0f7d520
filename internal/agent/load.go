package agent

import (
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/hopbench/hopbench/internal/load"
	agentv1 "github.com/hopbench/hopbench/schema/hopbench/agent/v1"
)

// RunLoad runs a share of a load from this host: it dials the service
// with a byte counter of its own, says when its measured window opens,
// and sends what it measured, histograms whole.
func (s *Server) RunLoad(req *agentv1.LoadShare, stream agentv1.Agent_RunLoadServer) error {
	if _, err := s.session(req.Session); err != nil {
		return err
	}
	share, err := shareOf(req)
	if err != nil {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	ctx := stream.Context()
	w, err := load.OpenWindow(ctx, load.WindowConfig{Target: share.Target, Network: share.Network})
	if err != nil {
		return status.Errorf(codes.Unavailable, "host %s dialling %s: %v", s.Host, share.Target.Addr, err)
	}
	defer w.Close()
	var sendErr error
	m, err := w.Measure(ctx, share.Load, nil, func() {
		sendErr = stream.Send(&agentv1.LoadEvent{Event: &agentv1.LoadEvent_WindowOpened{WindowOpened: &agentv1.WindowOpened{}}})
	})
	if err != nil {
		return status.Errorf(codes.Aborted, "host %s: %v", s.Host, err)
	}
	if sendErr != nil {
		return sendErr
	}
	msg, err := message(m)
	if err != nil {
		return status.Error(codes.Internal, err.Error())
	}
	return stream.Send(&agentv1.LoadEvent{Event: &agentv1.LoadEvent_Result{Result: msg}})
}
