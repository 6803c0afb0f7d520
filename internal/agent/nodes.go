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
	for what, words := range map[string][]string{"args": req.Args, "env": req.Env, "downstream": req.Downstream} {
		if err := checkArgs(what, words); err != nil {
			return nil, err
		}
	}
	bin, err := selfBin(s.Bin)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	args, err := ss.nodeArgs(req.Args, req.Message)
	if err != nil {
		return nil, err
	}
	start := topology.Processes(topology.ProcessConfig{
		Bin: bin, Node: func(int) nodeapi.Config { return nodeapi.Config{Listen: req.Listen, Extra: args} },
		Host: func(int) ([]string, string) { return nil, s.Advertise },
		Env:  req.Env, Stderr: s.logOrDiscard(),
	})
	inst, err := start(ctx, int(req.Index), req.Downstream)
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
