package agent

import (
	"context"
	"fmt"
	"net"
	"slices"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/hopbench/hopbench/internal/broker"
	agentv1 "github.com/hopbench/hopbench/schema/hopbench/agent/v1"
)

// StartBroker starts a broker of the session on the advertised address,
// at the broker's usual port, with its data under BrokerDir; a broker the
// session started and that still answers is returned as it is. It stops
// with the session.
func (s *Server) StartBroker(ctx context.Context, req *agentv1.StartBrokerRequest) (*agentv1.StartBrokerReply, error) {
	ss, err := s.session(req.Session)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(broker.Names, req.Name) {
		return nil, status.Errorf(codes.InvalidArgument, "unknown broker %q (known: %v)", req.Name, broker.Names)
	}
	if b := ss.broker(req.Name); b != nil && !b.Gone() {
		return brokerReply(b), nil
	}
	bin, err := selfBin(s.Bin)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	_, port, _ := net.SplitHostPort(broker.DefaultAddr[req.Name])
	b, err := broker.Start(ctx, req.Name, broker.Config{Dir: s.BrokerDir, Addr: net.JoinHostPort(s.Advertise, port), Bin: bin, OnHost: true})
	if err != nil {
		return nil, status.Errorf(codes.Unavailable, "host %s: %v", s.Host, err)
	}
	ss.mu.Lock()
	closed := ss.closed
	if !closed {
		ss.brokers = append(ss.brokers, b)
	}
	ss.mu.Unlock()
	if closed {
		b.Close()
		return nil, status.Error(codes.FailedPrecondition, errStopped.Error())
	}
	return brokerReply(b), nil
}

func brokerReply(b *broker.Broker) *agentv1.StartBrokerReply {
	return &agentv1.StartBrokerReply{Addr: b.Addr, Version: b.Version, Pid: int32(b.PID)}
}

// broker is the session's broker called name, if it started one.
func (ss *session) broker(name string) *broker.Broker {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for _, b := range slices.Backward(ss.brokers) {
		if b.Name == name {
			return b
		}
	}
	return nil
}

// brokerPIDs are a broker's processes on this host: its own and those
// started with it.
func brokerPIDs(b *broker.Broker) []int {
	if b.PID == 0 {
		return nil
	}
	return append([]int{b.PID}, b.Extra...)
}

// StartBroker starts (or finds) the named broker on the agent's host and
// returns it as a run on this machine sees it: its address and version,
// started by hopbench. Its process is on the host, the agent's to measure:
// BrokerPID says which it is there.
func (c *Client) StartBroker(ctx context.Context, name string) (*broker.Broker, error) {
	r, err := c.api.StartBroker(ctx, &agentv1.StartBrokerRequest{Session: c.session, Name: name})
	if err != nil {
		return nil, fmt.Errorf("host %s: %w", c.Name, explain(err))
	}
	c.mu.Lock()
	if c.brokers == nil {
		c.brokers = map[string]int{}
	}
	c.brokers[name] = int(r.Pid)
	c.mu.Unlock()
	return &broker.Broker{Name: name, Addr: r.Addr, Version: r.Version, Started: true}, nil
}

// BrokerPID is the process of the named broker on the agent's host; 0 if
// the session started none.
func (c *Client) BrokerPID(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.brokers[name]
}
