// Package agent is hopbench on a host of its own: `hopbench agent` serves
// the agent API (schema/hopbench/agent/v1) to a coordinator, which starts
// nodes, load shares and brokers there and reads the host's counters; and
// the coordinator's side of it, which holds a session on each agent and
// merges what the shares measured.
package agent

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/hopbench/hopbench/internal/broker"
	"github.com/hopbench/hopbench/internal/environment"
	"github.com/hopbench/hopbench/internal/topology"
	"github.com/hopbench/hopbench/internal/userschema"
	agentv1 "github.com/hopbench/hopbench/schema/hopbench/agent/v1"
)

// Limits on what one coordinator may start on an agent.
const (
	MaxSessions     = 16
	MaxNodesPerHost = 256
	// A node's environment: words, and their bytes.
	maxEnv      = 256
	maxEnvBytes = 64 << 10
)

// Server is one host's agent: what coordinators start on it lives in a
// session, and a session ends, everything in it stopped, when its
// coordinator's Hold call does.
type Server struct {
	agentv1.UnimplementedAgentServer
	// Host is the agent's name for its host; Advertise is the address the
	// nodes and brokers it starts listen on, reachable from the other
	// hosts.
	Host, Advertise string
	// Bin is the hopbench binary nodes are started from.
	Bin string
	// Log receives the nodes' standard error (default: discarded).
	Log io.Writer
	// BrokerDir is where brokers started here keep their data.
	BrokerDir string

	mu       sync.Mutex
	sessions map[string]*session
}

// session is what one coordinator started.
type session struct {
	id     string
	events chan *agentv1.Event
	// done is closed when the session ends: no one reads events then.
	done    chan struct{}
	mu      sync.Mutex
	nodes   map[string]*topology.Process
	brokers []*broker.Broker
	next    int
	closed  bool
	// messages are the users' messages the session brought, unpacked
	// under dir, by full name.
	messages map[string]userschema.Source
	dir      string
}

// Hold opens a session and keeps it until the coordinator ends the call;
// then everything the session started is stopped.
func (s *Server) Hold(req *agentv1.HoldRequest, stream agentv1.Agent_HoldServer) error {
	if req.Protocol != Protocol {
		return status.Errorf(codes.FailedPrecondition, "host %s: the coordinator speaks agent protocol %d, this agent %d: run one hopbench version on both", s.Host, max(req.Protocol, 1), Protocol)
	}
	ss, err := s.open(req.Session)
	if err != nil {
		return err
	}
	defer s.end(ss)
	if err := s.unpack(stream.Context(), ss, req.Messages); err != nil {
		return err
	}
	held := &agentv1.Held{Host: s.Host, Advertise: s.Advertise, Version: environment.Version, Protocol: Protocol}
	if err := stream.Send(&agentv1.Event{Event: &agentv1.Event_Held{Held: held}}); err != nil {
		return err
	}
	for {
		select {
		case <-stream.Context().Done():
			return nil
		case ev := <-ss.events:
			if err := stream.Send(ev); err != nil {
				return err
			}
		}
	}
}

func (s *Server) open(id string) (*session, error) {
	if id == "" || len(id) > 128 {
		return nil, status.Error(codes.InvalidArgument, "a session needs a name of 1 to 128 bytes")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sessions == nil {
		s.sessions = map[string]*session{}
	}
	if _, dup := s.sessions[id]; dup {
		return nil, status.Errorf(codes.AlreadyExists, "session %s is held already", id)
	}
	if len(s.sessions) >= MaxSessions {
		return nil, status.Errorf(codes.ResourceExhausted, "this agent holds %d sessions, its most", MaxSessions)
	}
	ss := &session{id: id, events: make(chan *agentv1.Event, MaxNodesPerHost), done: make(chan struct{}), nodes: map[string]*topology.Process{}}
	s.sessions[id] = ss
	return ss, nil
}

// end stops what the session started and forgets it.
func (s *Server) end(ss *session) {
	s.mu.Lock()
	delete(s.sessions, ss.id)
	s.mu.Unlock()
	ss.mu.Lock()
	if !ss.closed {
		close(ss.done)
	}
	ss.closed = true
	nodes, brokers := ss.nodes, ss.brokers
	ss.nodes, ss.brokers = nil, nil
	ss.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range nodes {
		wg.Add(1)
		go func() { defer wg.Done(); p.Close() }()
	}
	wg.Wait()
	for _, b := range brokers {
		b.Close()
	}
	if ss.dir != "" {
		os.RemoveAll(ss.dir)
	}
}

// session returns the held session id.
func (s *Server) session(id string) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.sessions[id]
	if ss == nil {
		return nil, status.Errorf(codes.FailedPrecondition, "session %q is not held: call Hold first and keep it open", id)
	}
	return ss, nil
}

// Sessions is how many sessions the agent holds.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

// Close stops every session's processes (the agent is going away).
func (s *Server) Close() {
	s.mu.Lock()
	var all []*session
	for _, ss := range s.sessions {
		all = append(all, ss)
	}
	s.mu.Unlock()
	for _, ss := range all {
		s.end(ss)
	}
}

func checkArgs(what string, args []string) error {
	n := 0
	for _, a := range args {
		n += len(a)
	}
	if len(args) > maxEnv || n > maxEnvBytes {
		return status.Errorf(codes.InvalidArgument, "%s: %d words of %d bytes; at most %d words of %d bytes", what, len(args), n, maxEnv, maxEnvBytes)
	}
	return nil
}

var errStopped = errors.New("the session ended")

func (s *Server) logOrDiscard() io.Writer {
	if s.Log == nil {
		return io.Discard
	}
	return s.Log
}

func selfBin(bin string) (string, error) {
	if bin != "" {
		return bin, nil
	}
	b, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("agent: finding hopbench's binary: %w", err)
	}
	return b, nil
}
