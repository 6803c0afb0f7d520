package main_test

import (
	"context"
	"net"
	"testing"

	"github.com/hopbench/hopbench/internal/agent"
	"github.com/hopbench/hopbench/internal/broker"
	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/nodeapi"
	"github.com/hopbench/hopbench/internal/nodeapi/nodetest"
	"github.com/hopbench/hopbench/internal/transport"
)

// A broker stack's node honours the node contract as the others do: it
// serves through its broker, at the URL an orchestrator gives it. NATS
// runs under -short (it is embedded in hopbench); RabbitMQ and Kafka in
// the full suite, where setup has installed them.
func TestBrokerStackNodesHonourTheNodeContract(t *testing.T) {
	stacks := []string{"nats", "amqp", "kafka+proto"}
	if testing.Short() {
		stacks = stacks[:1]
	}
	for _, stack := range stacks {
		t.Run(stack, func(t *testing.T) {
			st, _ := transport.ParseStack(stack)
			tr, _ := transport.Lookup(st.Transport)
			b := startBroker(t, transport.BrokerOf(tr))
			cfg := nodeapi.Config{Stack: stack, Listen: tr.Caps().Scheme + "://" + b.Addr + "/"}
			nodetest.Check(t, cfg, nodetest.Command(bin, "node"))
		})
	}
}

// startBroker starts a broker of the test's own, on a free port, stopped
// when the test ends.
func startBroker(t *testing.T, name string) *broker.Broker {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	b, err := broker.Start(context.Background(), name, broker.Config{Dir: t.TempDir(), Addr: addr, Bin: bin})
	if err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	t.Cleanup(func() { b.Stop(context.Background()) })
	return b
}

// A node an agent starts on its host honours the node contract too: the
// coordinator reaches it where the agent says it serves, and stopping it
// through the agent ends it.
func TestAgentStartedNodesHonourTheNodeContract(t *testing.T) {
	run, err := certs.New()
	if err != nil {
		t.Fatal(err)
	}
	auth := agent.Auth{TLS: run}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- agent.Serve(ctx, &agent.Server{Host: "a", Advertise: "127.0.0.1", Bin: bin}, l, auth)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("agent: %v", err)
		}
	})
	c, err := agent.Dial(context.Background(), "a", l.Addr().String(), auth)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	for _, stack := range []string{"rest", "grpc"} {
		t.Run(stack, func(t *testing.T) { nodetest.Check(t, nodeapi.Config{Stack: stack}, onAgent(c)) })
	}
}

// onAgent launches nodes through the agent c: the contract's addresses
// are the agent's to choose (its advertised address), the rest of the
// configuration travels typed.
func onAgent(c *agent.Client) nodetest.Launch {
	return func(t *testing.T, cfg nodeapi.Config) nodetest.Node {
		t.Helper()
		cfg.Announce, cfg.Listen, cfg.Admin = false, "", ""
		n, err := c.StartNode(context.Background(), agent.NodeSpec{Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { n.Close() })
		// The agent relays the node's addresses, not its ready line: the
		// stack is what the node's own stats say it serves.
		s, err := nodeapi.Admin{Addr: n.AdminAddr()}.Stats(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return agentNode{n: n, stack: s.Stack}
	}
}

type agentNode struct {
	n     *agent.Node
	stack string
}

func (a agentNode) Ready() nodeapi.Ready {
	return nodeapi.Ready{Version: nodeapi.Version, Stack: a.stack, Addr: a.n.Addr(), Admin: a.n.AdminAddr()}
}
func (a agentNode) Interrupt() error      { return a.n.Close() }
func (a agentNode) Done() <-chan struct{} { return a.n.Done() }
