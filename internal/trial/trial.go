package trial

import (
	"context"
	"crypto/tls"
	"fmt"
	"time"

	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/topology"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/wire"
)

// Hooks are what a run's caller hears as it goes.
type Hooks struct {
	// OnSecond is called as each measured second completes.
	OnSecond func(results.Second)
	// OnTick, if set, receives each measured second's live figures
	// (load.Config.Live) from a generator in this process.
	OnTick func(load.Tick)
}

// errNodeExited ends a run whose node went away; errBrokerExited one whose
// broker did; errNodeUnavailable one whose node said it could not serve.
var (
	errNodeExited      = fmt.Errorf("a node exited during the run (%w)", load.ErrServiceDied)
	errBrokerExited    = fmt.Errorf("the broker exited during the run (%w)", load.ErrServiceDied)
	errNodeUnavailable = fmt.Errorf("a node said it could not serve (%w)", load.ErrServiceDied)
)

// Make makes one run of c in its steps, filling rec: its network, its
// broker and TLS, its nodes started and booted, the generator dialled, the
// schema trials, the load driven while nodes and broker are watched, the
// figures collected and the outcome judged. An error means the run could
// not be made at all.
func (x *Rig) Make(ctx context.Context, c *Case, rec *results.Record, hooks Hooks) error {
	if err := x.check(c); err != nil {
		return err
	}
	m, err := x.assemble(c, hooks)
	if err != nil {
		return fmt.Errorf("assembling the run: %w", err)
	}
	defer m.close()
	err = m.setUp(ctx)
	recordSetUp(rec, m.made)
	if err != nil {
		return err
	}
	runCtx, stopWatching := m.watch(ctx)
	defer stopWatching()
	m.runCtx = runCtx
	got, err := m.gen.drive(runCtx, c.Load, m.windowOpens)
	if err != nil {
		return fmt.Errorf("driving the load: %w", err)
	}
	if err := collect(context.WithoutCancel(runCtx), rec, got, m.leg, m.nodes, m.meters); err != nil {
		return fmt.Errorf("collecting the figures: %w", err)
	}
	rec.Outcome, rec.Reason = outcome(ctx, runCtx, m.leg, m.nodes, m.hops, rec, got.Result)
	rec.MarkFailures()
	return nil
}

// step is one named step of a run's set-up: an error it returns says
// which step failed.
type step struct {
	name string
	do   func(context.Context) error
}

// setUp makes the run's set-up, step by step, up to the measured window.
func (m *measurement) setUp(ctx context.Context) error {
	for _, s := range []step{
		{"emulating the network", m.emulate},
		{"placing the run", m.place},
		{"starting proxies", m.openHops},
		{"starting nodes", m.startNodes},
		{"booting nodes", m.boot},
		{"dialling the entry node", m.dial},
		{"schema trials", m.evolve},
	} {
		if err := s.do(ctx); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return nil
}

// measurement is one run in the making: its parts, chosen once from its
// case, and what each step leaves for the next.
type measurement struct {
	*Rig
	c *Case

	// The parts: where the nodes run, what drives them, what network
	// lies between, the broker leg (where the broker is, if any) and
	// what lies on the hops (proxies, if any).
	net     netPath
	home    nodeHome
	runtime nodeRuntime
	gen     generator
	leg     brokerLeg
	hops    hops

	// made is what the set-up made that the record carries.
	made made
	// listen is where the nodes listen ("" for their own address).
	listen    string
	tlsDir    string
	clientTLS *tls.Config
	nodes     *nodeSet
	insts     []topology.Instance
	// fronts puts the hops' proxies in front of the nodes as they start.
	fronts startWrap
	// runCtx is the run's while it drives the load (admin calls take it).
	runCtx context.Context
	// starts open the run's meters as the window opens; meters read
	// figures over it, in order.
	starts []meterStart
	meters []meter
}

// assemble chooses the run's parts from its case, and its meters.
func (x *Rig) assemble(c *Case, hooks Hooks) (*measurement, error) {
	m := &measurement{Rig: x, c: c}
	m.nodes = &nodeSet{limit: c.Memory, name: fmt.Sprintf("hopbench-%d-run%d", pid, c.Index), reset: x.cfg.ResetNode}
	m.net, m.hops = x.netPathOf(c), hopsOf(c, x.cfg.Dir, x.tlsDir())
	env := nodeEnv(x.cfg.Env, c)
	var where brokerHome = x.brokers
	m.home = localNodes{bin: x.cfg.Bin, env: env, stderr: x.cfg.NodeStderr, host: m.net.host(), seeds: x.jvm, seed: c.Seed, index: c.Index, nodes: m.nodes}
	m.gen = engineOf(c, m.net, x.pin, hooks)
	var split *shares
	if c.Placement != nil {
		split = sharesOf(c, x.agents, m.net)
		m.home, m.gen, where = hostNodesOf(c, x.agents, env), split, hostBroker{x.agents[c.Placement.Broker]}
	}
	m.runtime = runtimeOf(c, m.net, m.home)
	var err error
	if m.leg, err = legOf(c, where, x.brokers); err != nil {
		return nil, err
	}
	m.starts = []meterStart{m.home.meter(m.nodes), brokerMeter(m.leg), proxyMeter(m.hops), noiseMeter, heapMeter(m.nodes)}
	if split != nil {
		m.starts = append(m.starts, hostsMeter(x.agents, c.Placement, m.nodes, m.leg, split))
	}
	return m, nil
}

// emulate sets up and measures the run's emulated network, if it has one:
// what its figures were made under.
func (m *measurement) emulate(ctx context.Context) (err error) {
	m.made.network, err = m.net.measure(ctx)
	return err
}

// place resolves the stack's options, where the nodes listen (a broker
// stack's broker, made sure of) and how the run's connections are
// encrypted.
func (m *measurement) place(ctx context.Context) (err error) {
	if m.made.options, err = resolveOptions(m.c); err != nil {
		return err
	}
	if m.listen, err = m.leg.ensure(ctx); err != nil {
		return err
	}
	m.tlsDir, m.clientTLS, m.made.encrypted, err = m.runTLS()
	return err
}

// openHops starts the proxies that go before the nodes (a broker's), and
// says how the nodes are started behind theirs.
func (m *measurement) openHops(ctx context.Context) (err error) {
	if m.listen, m.fronts, err = m.hops.open(ctx, m.leg, m.listen); err != nil {
		return err
	}
	m.made.proxies = proxyRecords(m.hops.processes())
	return nil
}

// startNodes starts the topology's nodes where the case puts them; a
// one-way run has none (its generator publishes and consumes).
func (m *measurement) startNodes(ctx context.Context) error {
	if m.c.OneWay != nil {
		return nil
	}
	insts, err := topology.Start(ctx, m.c.Topology, m.fronts(m.home.start(m.nodeConfig, m.nodes.started)))
	if err != nil {
		return err
	}
	m.made.proxies = proxyRecords(m.hops.processes())
	m.insts = insts
	m.nodes.set(insts)
	return nil
}

// entry is the address the generator calls: the entry node's, or for a
// one-way run its broker stack's (where a node would listen).
func (m *measurement) entry() string {
	if m.c.OneWay != nil {
		return m.listen
	}
	return m.insts[0].Addr()
}

func (m *measurement) transportConfig() transport.Config {
	tcfg := m.c.transport()
	tcfg.ClientTLS = m.clientTLS
	return tcfg
}

// boot times each node to its first good reply.
func (m *measurement) boot(ctx context.Context) (err error) {
	m.made.nodes, err = m.nodes.boot(ctx, m.c.Stack, m.transportConfig())
	return err
}

// dial connects the generator to the entry node.
func (m *measurement) dial(ctx context.Context) error {
	return m.gen.dial(ctx, m.c.target(m.entry(), m.transportConfig()))
}

// evolve, in a run with a schema set, sends a message of each schema
// change through the live nodes in echo, on a client of its own (whose
// bytes the load's figures do not count), and keeps what came back.
func (m *measurement) evolve(ctx context.Context) error {
	if m.c.Schema == nil {
		return nil
	}
	tr, err := transport.Lookup(m.c.Stack.Transport)
	if err != nil {
		return err
	}
	tcfg := m.transportConfig()
	tcfg.Dialer = &wire.Dialer{Counter: &wire.Counter{}, Network: m.net.inProcess(), From: m.net.from()}
	cl, err := transport.Dial(ctx, tr, m.insts[0].Addr(), tcfg)
	if err != nil {
		return fmt.Errorf("dialling the entry node: %w", err)
	}
	defer cl.Close()
	m.made.evolution, err = evolution.Live(ctx, cl, m.c.Stack, evolution.SchemaFor(m.c.Model), m.c.Schema, evolution.TrialCounts, m.c.Seed, m.c.Timeout)
	return err
}

// watch returns a context that ends, with the cause, if a node or the
// broker dies or a node says it cannot serve, until stop: through the
// load and the collecting of figures after it.
func (m *measurement) watch(ctx context.Context) (runCtx context.Context, stop func()) {
	runCtx, cancel := context.WithCancelCause(ctx)
	stops := []func(){m.nodes.watch(func() { cancel(errNodeExited) }), watchProxies(m.hops.processes(), func() { cancel(errProxyExited) }),
		m.leg.watch(m.nodes, cancel)}
	return runCtx, func() {
		for _, s := range stops {
			s()
		}
		cancel(nil)
	}
}

// windowOpens notes every count the measured window is taken from: the
// nodes' (which it resets), and those of each meter the run has.
func (m *measurement) windowOpens() {
	m.nodes.windowStart(m.runCtx)
	for _, start := range m.starts {
		if start == nil {
			continue
		}
		if mt := start(m.runCtx); mt != nil {
			m.meters = append(m.meters, mt)
		}
	}
}

func (m *measurement) close() {
	m.gen.close()
	m.nodes.close()
	m.hops.close()
}

// bootWithin bounds a node's boot, from spawn to first good reply.
const bootWithin = 30 * time.Second
