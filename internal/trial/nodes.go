package trial

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/hopbench/hopbench/internal/agent"
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
	// start starts node i with config(i); started hears of each
	// process as soon as it exists here.
	start(config func(i int) nodeapi.Config, started func(i, pid int) error) topology.StartFunc
	// jvm is where JVM node i's get replies come from, and what else it
	// is told there.
	jvm(i int, cfg nodeapi.Config) nodeapi.Config
	// meter reads the nodes' CPU and memory over the window, if this
	// machine can (nil: their hosts' agents do).
	meter(nodes *nodeSet) meterStart
}

// localNodes are child processes of this one, from bin, with env, their
// output to stderr, each on host (nil: here). A JVM node takes the rig's
// seeds file of the run's seed and writes a GC log under the rig's JVM
// directory, which nodes removes.
type localNodes struct {
	bin    string
	env    []string
	stderr io.Writer
	host   func(int) ([]string, string)
	seeds  *jvmSetup
	seed   uint64
	index  int
	nodes  *nodeSet
}

// jvm gives a JVM node here the rig's seeds file of the run's seed (the
// file is the seed's, so the seed is not given again) and a GC log, which
// the heap meter reads.
func (l localNodes) jvm(i int, cfg nodeapi.Config) nodeapi.Config {
	cfg.Seeds, cfg.Seed = l.seeds.seeds[l.seed], nil
	return logHeap(l.seeds.dir, l.index, i, l.nodes, cfg)
}

func (localNodes) meter(nodes *nodeSet) meterStart { return nodesMeter(nodes) }

func (l localNodes) start(config func(int) nodeapi.Config, started func(i, pid int) error) topology.StartFunc {
	return topology.Processes(topology.ProcessConfig{
		Bin: l.bin, Node: config, Host: l.host, Env: l.env, Started: started, Stderr: l.stderr,
	})
}

// hostNodes are nodes on the placement's hosts (node i on hosts[i]),
// started by their agents with env; model is the run's, gets what a JVM
// node there generates its get replies for.
type hostNodes struct {
	agents agents
	hosts  []string
	env    []string
	model  string
	gets   []string
}

func hostNodesOf(c *Case, a agents, env []string) hostNodes {
	h := hostNodes{agents: a, hosts: c.Placement.Nodes, env: env, model: c.Model}
	if c.Op == transport.OpGet {
		h.gets = []string{fmt.Sprintf("%s:%d", c.Model, c.Count)}
	}
	return h
}

// jvm has a JVM node on a host generate the run's get replies there, with
// that host's hopbench.
func (h hostNodes) jvm(_ int, cfg nodeapi.Config) nodeapi.Config {
	cfg.Gets = h.gets
	return cfg
}

func (hostNodes) meter(*nodeSet) meterStart { return nil }

// start starts node i on its host's agent, as that host's hopbench node
// with the case's configuration; a broker stack's node listens on its
// broker, any other on the host's address.
func (h hostNodes) start(config func(int) nodeapi.Config, _ func(i, pid int) error) topology.StartFunc {
	return func(ctx context.Context, i int, downstream []string) (topology.Instance, error) {
		cfg := config(i)
		listen := cfg.Listen
		cfg.Listen = ""
		var message string
		if cfg.Proto != nil { // the host's own copy, which its session brought
			cfg.Proto, message = nil, h.model
		}
		return h.agents[h.hosts[i]].StartNode(ctx, agent.NodeSpec{Index: i, Listen: listen, Downstream: downstream, Config: cfg, Env: h.env, Message: message})
	}
}

// nodeConfig is node i's configuration in the run: what every runtime
// takes, and what its runtime takes beyond it.
func (m *measurement) nodeConfig(i int) nodeapi.Config {
	c := m.c
	cfg := nodeapi.Config{Stack: c.Stack.String(), Listen: m.listen, Seed: &c.Seed, Cache: c.Cache, CPUs: m.pin.nodes, Proto: c.Proto, ProtoV2: c.ProtoV2}
	return m.runtime.node(i, cfg, nodeTLS{dir: m.tlsDir, mutual: m.clientTLS != nil && len(m.clientTLS.Certificates) > 0})
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
