package trial

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/hopbench/hopbench/internal/agent"
	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/nodeapi"
	"github.com/hopbench/hopbench/internal/topology"
	"github.com/hopbench/hopbench/internal/transport"
)

var pid = os.Getpid()

// nodeHome is where a run's nodes run: child processes here (on the
// lab's hosts when the kernel emulates the network), or on the hosts of
// the case's placement, started by their agents.
type nodeHome interface {
	start(m *measurement) topology.StartFunc
	// jvm is where JVM node i's get replies come from, and what else it
	// is told there.
	jvm(m *measurement, i int, cfg nodeapi.Config) nodeapi.Config
	// meter reads the nodes' CPU and memory over the window, if this
	// machine can (nil: their hosts' agents do).
	meter(nodes *nodeSet) meterStart
}

type localNodes struct{}

// jvm gives a JVM node here the rig's seeds file of the run's seed (the
// file is the seed's, so the seed is not given again) and a GC log, which
// the heap meter reads.
func (localNodes) jvm(m *measurement, i int, cfg nodeapi.Config) nodeapi.Config {
	cfg.Seeds, cfg.Seed = m.jvm.seeds[m.c.Seed], nil
	return m.logHeap(i, cfg)
}

func (localNodes) meter(nodes *nodeSet) meterStart { return nodesMeter(nodes) }

func (localNodes) start(m *measurement) topology.StartFunc {
	return topology.Processes(topology.ProcessConfig{
		Bin: m.cfg.Bin, Node: m.nodeConfig, Host: m.net.host(),
		Env: nodeEnv(m.cfg.Env, m.c), Started: m.nodes.started, Stderr: m.cfg.NodeStderr,
	})
}

type hostNodes struct{}

// jvm has a JVM node on a host generate the run's get replies there, with
// that host's hopbench.
func (hostNodes) jvm(m *measurement, _ int, cfg nodeapi.Config) nodeapi.Config {
	if m.c.Op == transport.OpGet {
		cfg.Gets = []string{fmt.Sprintf("%s:%d", m.c.Model, m.c.Count)}
	}
	return cfg
}

func (hostNodes) meter(*nodeSet) meterStart { return nil }

// start starts node i on its host's agent, as that host's hopbench node
// with the case's configuration; a broker stack's node listens on its
// broker, any other on the host's address.
func (hostNodes) start(m *measurement) topology.StartFunc {
	return func(ctx context.Context, i int, downstream []string) (topology.Instance, error) {
		cfg := m.nodeConfig(i)
		listen := cfg.Listen
		cfg.Listen = ""
		var message string
		if cfg.Proto != nil { // the host's own copy, which its session brought
			cfg.Proto, message = nil, m.c.Model
		}
		return m.agents[m.c.Placement.Nodes[i]].StartNode(ctx, agent.NodeSpec{Index: i, Listen: listen, Downstream: downstream, Config: cfg, Env: nodeEnv(m.cfg.Env, m.c), Message: message})
	}
}

// nodeConfig is node i's configuration in the run: what every runtime
// takes, and what the Go node or the JVM's takes beyond it.
func (m *measurement) nodeConfig(i int) nodeapi.Config {
	c := m.c
	cfg := nodeapi.Config{Stack: c.Stack.String(), Listen: m.listen, Seed: &c.Seed, Cache: c.Cache, CPUs: m.pin.nodes, Proto: c.Proto, ProtoV2: c.ProtoV2}
	if c.JVM != nil {
		return m.jvmConfig(i, cfg)
	}
	if c.Schema != nil {
		cfg.Schema = string(c.Schema.Node(i))
	}
	cfg.Options, cfg.HTTP2, cfg.TLSDir = c.TransportOptions, c.HTTP2, m.tlsDir
	cfg.MTLS = m.clientTLS != nil && len(m.clientTLS.Certificates) > 0
	// A load whose clients outnumber a node's default connection cap
	// (possible once limits are raised) gets nodes that take them all,
	// and the calls between nodes besides.
	if peak := c.Load.PeakConcurrency() + 64; peak > transport.DefaultMaxConns {
		cfg.MaxConns = peak
	}
	if p := m.net.inProcess(); !p.IsLoopback() {
		cfg.Network = p.String()
	}
	return cfg
}

// jvmConfig is a JVM node's configuration: the stack, its get replies
// (where they come from is its home's to say) and the cache; what else a
// Go node would be told, validation has refused for the JVM.
func (m *measurement) jvmConfig(i int, cfg nodeapi.Config) nodeapi.Config {
	cfg.Runtime, cfg.JVMFlags = jvm.JVM, m.c.JVM.Flags
	return m.home.jvm(m, i, cfg)
}

// nodeEnv is the nodes' environment: the runner's, and the Go runtime's
// soft memory limit the run sets, or off when it sets none; last, so that
// it wins over a GOMEMLIMIT the nodes would otherwise inherit and the
// record says what ran.
func nodeEnv(env []string, c *Case) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "GOMEMLIMIT=") })
	if c.GoMemLimit > 0 {
		return append(out, fmt.Sprintf("GOMEMLIMIT=%d", c.GoMemLimit))
	}
	return append(out, "GOMEMLIMIT=off")
}

// probeNode dials a node for the probes that time its boot.
func probeNode(ctx context.Context, st transport.Stack, addr string, tcfg transport.Config) (*load.Target, error) {
	return load.DialTarget(ctx, load.TargetConfig{Stack: st, Addr: addr, Transport: tcfg, Op: transport.OpEcho, Model: "int", Count: 1})
}
