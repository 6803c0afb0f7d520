package agent

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/hopbench/hopbench/internal/nodeapi"
	"github.com/hopbench/hopbench/internal/topology"
	agentv1 "github.com/hopbench/hopbench/schema/hopbench/agent/v1"
)

// StartNode starts a node of the session on the advertised address and
// replies once it has announced where it serves.
func (s *Server) StartNode(ctx context.Context, req *agentv1.StartNodeRequest) (*agentv1.StartNodeReply, error) {
	ss, err := s.session(req.Session)
	if err != nil {
		return nil, err
	}
	if err := checkArgs("env", req.Env); err != nil {
		return nil, err
	}
	cfg, err := ss.nodeConfig(req.Config)
	if err != nil {
		return nil, err
	}
	bin, err := selfBin(s.Bin)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	start := topology.Processes(topology.ProcessConfig{
		Bin: bin, Node: func(int) nodeapi.Config { return cfg },
		Host: func(int) ([]string, string) { return nil, s.Advertise },
		Env:  req.Env, Stderr: s.logOrDiscard(),
	})
	inst, err := start(ctx, int(req.Index), cfg.Downstream)
	if err != nil {
		return nil, status.Errorf(codes.Unavailable, "host %s: %v", s.Host, err)
	}
	p := inst.(*topology.Process)
	id, err := ss.add(p)
	if err != nil {
		p.Close()
		return nil, err
	}
	go ss.watch(id, p)
	return &agentv1.StartNodeReply{Node: id, Addr: p.Addr(), AdminAddr: p.AdminAddr(), Pid: int32(p.PID()),
		ReadyNs: time.Since(p.Spawned()).Nanoseconds()}, nil
}

// nodeConfig is the configuration a node is started with: n, bounded
// and as the node contract checks it (Validate), its user's message the
// session's copy. A bad one is refused, naming the field.
func (ss *session) nodeConfig(n *agentv1.NodeConfig) (nodeapi.Config, error) {
	if n == nil {
		return nodeapi.Config{}, status.Errorf(codes.InvalidArgument, "config: none; a coordinator of agent protocol %d sends the node's", Protocol)
	}
	if err := checkConfig(n); err != nil {
		return nodeapi.Config{}, err
	}
	cfg := configOf(n)
	if err := cfg.Validate(); err != nil {
		return nodeapi.Config{}, status.Errorf(codes.InvalidArgument, "config: %v", err)
	}
	if cfg.Proto != nil {
		src, ok := ss.messages[cfg.Proto.Message]
		if !ok {
			return nodeapi.Config{}, status.Errorf(codes.InvalidArgument, "config.message: the node serves %s, which the session did not bring (HoldRequest.messages)", cfg.Proto.Message)
		}
		cfg.Proto = &src
	}
	return cfg, nil
}

// add keeps p in the session, unless the session ended or is full.
func (ss *session) add(p *topology.Process) (string, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closed {
		return "", status.Error(codes.FailedPrecondition, errStopped.Error())
	}
	if len(ss.nodes) >= MaxNodesPerHost {
		return "", status.Errorf(codes.ResourceExhausted, "the session runs %d nodes here, its most", MaxNodesPerHost)
	}
	ss.next++
	id := fmt.Sprintf("n%d", ss.next)
	ss.nodes[id] = p
	return id, nil
}

// watch tells the coordinator when node id ends on its own (not stopped
// by StopNode or the session's end).
func (ss *session) watch(id string, p *topology.Process) {
	<-p.Done()
	ss.mu.Lock()
	mine := ss.nodes[id] == p
	if mine {
		delete(ss.nodes, id)
	}
	ss.mu.Unlock()
	if mine {
		select {
		case ss.events <- &agentv1.Event{Event: &agentv1.Event_Exited{Exited: &agentv1.Exited{Node: id, How: p.Exit()}}}:
		case <-ss.done:
		}
	}
}

// StopNode interrupts a node of the session, and kills it if it lingers.
func (s *Server) StopNode(ctx context.Context, req *agentv1.StopNodeRequest) (*agentv1.StopNodeReply, error) {
	ss, err := s.session(req.Session)
	if err != nil {
		return nil, err
	}
	ss.mu.Lock()
	p := ss.nodes[req.Node]
	delete(ss.nodes, req.Node)
	ss.mu.Unlock()
	if p == nil {
		return nil, status.Errorf(codes.NotFound, "no node %q in session %s", req.Node, req.Session)
	}
	err = p.Close()
	reply := &agentv1.StopNodeReply{How: p.Exit()}
	if err != nil {
		reply.How += ": " + err.Error()
	}
	return reply, nil
}

// pids are those of want that are the session's processes (its nodes,
// its brokers and theirs), in want's order.
func (ss *session) pids(want []int32) []int {
	ss.mu.Lock()
	mine := map[int]bool{}
	for _, p := range ss.nodes {
		mine[p.PID()] = true
	}
	for _, b := range ss.brokers {
		for _, pid := range brokerPIDs(b) {
			mine[pid] = true
		}
	}
	ss.mu.Unlock()
	var out []int
	for _, pid := range want {
		if mine[int(pid)] {
			out = append(out, int(pid))
		}
	}
	return out
}
