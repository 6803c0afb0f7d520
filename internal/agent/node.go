package agent

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hopbench/hopbench/internal/nodeapi"
	"github.com/hopbench/hopbench/internal/userschema"
	agentv1 "github.com/hopbench/hopbench/schema/hopbench/agent/v1"
)

// NodeSpec is how a coordinator starts node Index on an agent: as
// topology.ProcessConfig says it for a child process here.
type NodeSpec struct {
	Index int
	// Config is the node's configuration. Listen, Downstream and Message,
	// when given, are its Listen, Downstream and the name of its user's
	// message (one the session brought).
	Config     nodeapi.Config
	Listen     string
	Downstream []string
	Message    string
	// Env is added to the node's environment (KEY=VALUE).
	Env []string
}

// Node is a node an agent runs on its host, as a run sees it.
type Node struct {
	c       *Client
	id      string
	addr    string
	admin   string
	pid     int
	spawned time.Time
	done    chan struct{}
	once    sync.Once
	how     string
}

// StartNode starts the node s describes: see StartNodeConfig.
func (c *Client) StartNode(ctx context.Context, s NodeSpec) (*Node, error) {
	cfg := s.Config
	cfg.Listen = cmp.Or(s.Listen, cfg.Listen)
	if s.Downstream != nil {
		cfg.Downstream = s.Downstream
	}
	if s.Message != "" {
		cfg.Proto = &userschema.Source{Message: s.Message}
	}
	return c.StartNodeConfig(ctx, s.Index, cfg, s.Env)
}

// StartNodeConfig starts node index (its place in the topology) on the
// agent's host with cfg, its environment added to with env, and returns
// once it serves. cfg.Listen is a broker stack's broker URL, or anything
// else for the agent's advertised address; cfg.Proto is named to the
// agent by its message alone, which the session brought (Dial); Announce
// and Admin are the agent's to set.
//
// The node's spawn time is placed on this machine's clock as the reply's
// arrival less the time the agent measured from spawn to ready, so that
// a boot time leaves out the call's own round trip.
func (c *Client) StartNodeConfig(ctx context.Context, index int, cfg nodeapi.Config, env []string) (*Node, error) {
	nc, err := nodeConfigOf(cfg)
	if err != nil {
		return nil, fmt.Errorf("host %s: node %d: %w", c.Name, index, err)
	}
	r, err := c.api.StartNode(ctx, &agentv1.StartNodeRequest{Session: c.session, Index: int32(index), Config: nc, Env: env})
	if err != nil {
		return nil, fmt.Errorf("host %s: %w", c.Name, explain(err))
	}
	spawned := time.Now().Add(-time.Duration(r.ReadyNs))
	n := &Node{c: c, id: r.Node, addr: r.Addr, admin: r.AdminAddr, pid: int(r.Pid), spawned: spawned, done: make(chan struct{})}
	c.mu.Lock()
	lost := c.lost
	if lost == nil {
		c.nodes[n.id] = n
	}
	c.mu.Unlock()
	if lost != nil {
		n.exited("its agent's session ended")
	}
	return n, nil
}

func (n *Node) exited(how string) {
	n.once.Do(func() { n.how = how; close(n.done) })
}

// Host is the name of the node's host.
func (n *Node) Host() string { return n.c.Name }

// Addr is where the node serves; AdminAddr its admin endpoint.
func (n *Node) Addr() string      { return n.addr }
func (n *Node) AdminAddr() string { return n.admin }

// PID is the node's process id on its host.
func (n *Node) PID() int { return n.pid }

// Spawned is when the agent spawned the node, on this machine's clock.
func (n *Node) Spawned() time.Time { return n.spawned }

// Done is closed when the node has ended on its own.
func (n *Node) Done() <-chan struct{} { return n.done }

// Exit says how the node ended; "" while it runs.
func (n *Node) Exit() string {
	select {
	case <-n.done:
		return n.how
	default:
		return ""
	}
}

// Close stops the node.
func (n *Node) Close() error {
	n.c.mu.Lock()
	_, live := n.c.nodes[n.id]
	delete(n.c.nodes, n.id)
	n.c.mu.Unlock()
	if !live {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := n.c.api.StopNode(ctx, &agentv1.StopNodeRequest{Session: n.c.session, Node: n.id})
	if err != nil {
		return fmt.Errorf("host %s: stopping node %s: %w", n.c.Name, n.id, explain(err))
	}
	n.exited(r.How)
	return nil
}
