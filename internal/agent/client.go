package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/userschema"
	agentv1 "github.com/hopbench/hopbench/schema/hopbench/agent/v1"
)

// Client is a coordinator's session on one agent: what it starts there
// lives until Close (or until this process dies and the connection with
// it).
type Client struct {
	// Name is the host's name in the spec, Addr its agent's address.
	Name, Addr string
	// Held is what the agent said of itself.
	Held    *agentv1.Held
	api     agentv1.AgentClient
	conn    *grpc.ClientConn
	session string
	stop    context.CancelFunc
	mu      sync.Mutex
	nodes   map[string]*Node
	brokers map[string]int // the session's brokers' processes on the host
	lost    error          // why the session ended, once it has
}

// HoldTimeout bounds the wait for an agent to take a session.
const HoldTimeout = 10 * time.Second

// Dial connects to the agent at addr, authenticating as auth says, and
// holds a session on it that brings messages, the users' messages its
// nodes and load shares carry.
func Dial(ctx context.Context, name, addr string, auth Auth, messages ...userschema.Bundle) (*Client, error) {
	opts, err := auth.DialOptions()
	if err != nil {
		return nil, err
	}
	msgs, err := messagesOf(messages)
	if err != nil {
		return nil, fmt.Errorf("host %s: %w", name, err)
	}
	conn, err := grpc.NewClient(addr, opts...)
	if err != nil {
		return nil, fmt.Errorf("host %s: agent %s: %w", name, addr, err)
	}
	id := make([]byte, 8)
	rand.Read(id)
	c := &Client{Name: name, Addr: addr, api: agentv1.NewAgentClient(conn), conn: conn, session: hex.EncodeToString(id), nodes: map[string]*Node{}}
	if err := c.hold(ctx, msgs); err != nil {
		conn.Close()
		return nil, fmt.Errorf("host %s: agent %s: %w", name, addr, explain(err))
	}
	return c, nil
}

// hold opens the session and reads its events until it ends.
func (c *Client) hold(ctx context.Context, msgs []*agentv1.UserMessage) error {
	holdCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	stream, err := c.api.Hold(holdCtx, &agentv1.HoldRequest{Session: c.session, Protocol: Protocol, Messages: msgs}, grpc.MaxCallSendMsgSize(maxHoldBytes))
	if err != nil {
		stop()
		return err
	}
	first := make(chan error, 1)
	go func() {
		ev, err := stream.Recv()
		if err == nil && ev.GetHeld() == nil {
			err = errors.New("the agent's first word was not Held")
		}
		if p := ev.GetHeld().GetProtocol(); err == nil && p != Protocol {
			err = fmt.Errorf("the agent speaks agent protocol %d, this coordinator %d: run one hopbench version on both", max(p, 1), Protocol)
		}
		if err == nil {
			c.Held = ev.GetHeld()
		}
		first <- err
		if err == nil {
			c.events(stream)
		}
	}()
	select {
	case err = <-first:
	case <-time.After(HoldTimeout):
		err = fmt.Errorf("no answer within %s", HoldTimeout)
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		stop()
		return err
	}
	c.stop = stop
	return nil
}

// events hands each node's exit to it, and on the session's end marks
// every node of it gone.
func (c *Client) events(stream agentv1.Agent_HoldClient) {
	for {
		ev, err := stream.Recv()
		if err != nil {
			c.mu.Lock()
			c.lost = fmt.Errorf("host %s: the agent's session ended: %w", c.Name, explain(err))
			nodes := c.nodes
			c.nodes = map[string]*Node{}
			c.mu.Unlock()
			for _, n := range nodes {
				n.exited("its agent's session ended")
			}
			return
		}
		if x := ev.GetExited(); x != nil {
			c.mu.Lock()
			n := c.nodes[x.Node]
			delete(c.nodes, x.Node)
			c.mu.Unlock()
			if n != nil {
				n.exited(x.How)
			}
		}
	}
}

// Close ends the session: the agent stops everything started in it.
func (c *Client) Close() error {
	if c.stop != nil {
		c.stop()
	}
	return c.conn.Close()
}

// explain makes a gRPC error read as what happened.
func explain(err error) error {
	if s, ok := status.FromError(err); ok {
		return errors.New(s.Message())
	}
	return err
}

// Usage reads the host's counters and those of pids, processes of the
// session on the host.
func (c *Client) Usage(ctx context.Context, pids []int, resetPeak bool) (*agentv1.UsageReply, error) {
	req := &agentv1.UsageRequest{Session: c.session, ResetPeak: resetPeak}
	for _, pid := range pids {
		req.Pids = append(req.Pids, int32(pid))
	}
	u, err := c.api.Usage(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("host %s: usage: %w", c.Name, explain(err))
	}
	return u, nil
}

// RunShare runs a share of a load from the agent's host; opened is called
// when the share's measured window opens there.
func (c *Client) RunShare(ctx context.Context, s Share, opened func()) (load.Measured, error) {
	stream, err := c.api.RunLoad(ctx, s.message(c.session))
	if err != nil {
		return load.Measured{}, fmt.Errorf("host %s: load: %w", c.Name, explain(err))
	}
	for {
		ev, err := stream.Recv()
		switch {
		case errors.Is(err, io.EOF):
			return load.Measured{}, fmt.Errorf("host %s: the load share ended without its result", c.Name)
		case err != nil:
			return load.Measured{}, fmt.Errorf("host %s: load: %w", c.Name, explain(err))
		case ev.GetWindowOpened() != nil && opened != nil:
			opened()
		case ev.GetResult() != nil:
			m, err := measuredOf(ev.GetResult())
			if err != nil {
				return load.Measured{}, fmt.Errorf("host %s: %w", c.Name, err)
			}
			return m, nil
		}
	}
}

// RunShares runs a load split among the clients' hosts at once and
// merges what they measured: counts add, histograms merge. It returns the
// merged figures and each share's. opened is called once, when every
// share's window has opened.
func RunShares(ctx context.Context, gens []*Client, shares []Share, opened func()) (load.Measured, []load.Measured, error) {
	ctx, cancel := context.WithCancel(ctx) // one share failing ends the others
	defer cancel()
	var wg sync.WaitGroup
	var waiting atomic.Int64 // shares whose window has not opened
	waiting.Store(int64(len(shares)))
	out := make([]load.Measured, len(shares))
	errs := make([]error, len(shares))
	for i := range shares {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = gens[i].RunShare(ctx, shares[i], func() {
				if waiting.Add(-1) == 0 && opened != nil {
					opened()
				}
			})
			if errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return load.Measured{}, nil, err
	}
	merged, err := merge(out)
	return merged, out, err
}

func merge(ms []load.Measured) (load.Measured, error) {
	results := make([]*load.Result, len(ms))
	total := load.Measured{RequestBytes: ms[0].RequestBytes, RawRequestBytes: ms[0].RawRequestBytes, ReplyBytes: ms[0].ReplyBytes}
	for i, m := range ms {
		results[i] = m.Result
		total.Wire.Written += m.Wire.Written
		total.Wire.Read += m.Wire.Read
	}
	var err error
	total.Result, err = load.Merge(results)
	return total, err
}
