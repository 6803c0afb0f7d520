package experiment

import (
	"cmp"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hopbench/hopbench/internal/agent"
	"github.com/hopbench/hopbench/internal/broker"
	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/cgroup"
	"github.com/hopbench/hopbench/internal/codecbench"
	"github.com/hopbench/hopbench/internal/crosscheck"
	"github.com/hopbench/hopbench/internal/environment"
	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/lease"
	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/network"
	"github.com/hopbench/hopbench/internal/nodeapi"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
	"github.com/hopbench/hopbench/internal/topology"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/wire"
)

// Runner makes an experiment's runs one after another: for each, it starts
// the topology's nodes as child processes, measures, records and tears down.
type Runner struct {
	// Bin is the hopbench binary the nodes are started from.
	Bin string
	// Dir receives results.jsonl (one record per run, appended as each
	// ends) and the summaries.
	Dir string
	// NodeStderr receives the nodes' own output (default: discarded).
	NodeStderr io.Writer
	// Env is added to every node's environment.
	Env []string
	// Calibration, if measured, is stored with every record.
	Calibration *results.Calibration
	// OnRun is called as each run starts; OnSecond as each measured second
	// completes; OnRecord as each record is written.
	OnRun    func(i, n int, r Run)
	OnSecond func(r Run, s results.Second)
	OnRecord func(rec *results.Record)
	// Brokers says where the brokers of broker stacks keep their data and
	// how NATS is run (Bin defaults to the Runner's); BrokerAddrs overrides
	// a broker's address by name (default broker.DefaultAddr).
	Brokers     broker.Config
	BrokerAddrs map[string]string
	// OnBroker is called when the experiment starts a broker.
	OnBroker func(b *broker.Broker)
	// OnCodec is called as each codec timing of the spec's codecs ends.
	OnCodec func(i, n int, r codecbench.Result)
	// OnShared, if set, hears of other hopbench processes measuring on
	// this machine as the experiment starts and as each run ends.
	OnShared func(others []lease.Holder)
	// AgentAuth is how the coordinator authenticates to the agents of a
	// spec's hosts (default: the certificates of hopbench hosts up).
	AgentAuth agent.Auth
	// resetNode replaces the POST /reset that opens a node's measured
	// window (tests make it fail).
	resetNode func(ctx context.Context, adminAddr string) error
}

// CodecFile is the name of the codec timings file in a results directory.
const CodecFile = "codec.json"

// timeCodecs times the spec's codecs in-process on every payload the runs
// use and writes them to CodecFile; what was timed before an interruption
// is kept.
func (x *Runner) timeCodecs(ctx context.Context, s *Spec, runs []Run) error {
	var cases []codecbench.Case
	seen := map[codecbench.Case]bool{}
	for _, r := range runs {
		if key := (codecbench.Case{Model: r.Model, Count: r.Count}); !seen[key] {
			seen[key] = true
			for _, c := range s.Codecs {
				name, z, _ := ParseCodec(c) // validated
				cases = append(cases, codecbench.Case{Model: r.Model, Count: r.Count, Codec: name, Compress: z})
			}
		}
	}
	var onJVM []codecbench.Case
	if slices.Contains(s.Runtimes, jvm.JVM) {
		onJVM = jvmCodecCases(cases)
	}
	done, total := 0, len(cases)+len(onJVM)
	progress := func(r codecbench.Result) {
		if done++; x.OnCodec != nil {
			x.OnCodec(done-1, total, r)
		}
	}
	timed, err := codecbench.Run(ctx, cases, codecbench.Options{Seed: s.Seed}, func(_ int, r codecbench.Result) { progress(r) })
	if err == nil {
		var jvmTimed []codecbench.Result
		jvmTimed, err = timeJVMCodecs(ctx, onJVM, s.Seed, progress)
		timed = append(timed, jvmTimed...)
	}
	if len(timed) > 0 {
		if werr := results.WriteFileAtomic(filepath.Join(x.Dir, CodecFile), func(w io.Writer) error { return codecbench.WriteJSON(w, timed) }); werr != nil {
			return werr
		}
	}
	if err != nil {
		return fmt.Errorf("timing codecs: %w", err)
	}
	return nil
}

// ResultsFile is the name of the records file in a results directory.
const ResultsFile = "results.jsonl"

// Run makes every run of s. Each record is appended to Dir/results.jsonl
// as its run ends, so an interrupted experiment keeps every finished run;
// the interrupted run itself is recorded with outcome interrupted. It
// returns the records and, when ctx ended early, ctx's error. What is read
// from the records (summaries, report) is its caller's to write.
func (x *Runner) Run(ctx context.Context, s *Spec) ([]results.Record, error) {
	if err := os.MkdirAll(x.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("results directory: %w", err)
	}
	pin, err := newPinning(s.Pin)
	if err != nil {
		return nil, err
	}
	e := &execution{Runner: x, spec: s, pin: pin, env: environment.Describe()}
	measuring, others, err := lease.Measure()
	if err != nil {
		return nil, err
	}
	defer measuring.Release()
	e.measuring = measuring
	if len(others) > 0 && x.OnShared != nil {
		x.OnShared(others)
	}
	if e.NodeStderr == nil {
		e.NodeStderr = io.Discard
	}
	bcfg := x.Brokers
	if bcfg.Bin == "" {
		bcfg.Bin = x.Bin
	}
	runs := s.Runs()
	if e.lab, err = kernelLab(runs); err != nil {
		return nil, err
	}
	if e.lab != nil {
		defer e.lab.Close()
	}
	if e.jvm, err = jvmNodes(runs); err != nil {
		return nil, err
	}
	if e.jvm != nil {
		defer e.jvm.close()
	}
	if slices.ContainsFunc(runs, func(r Run) bool { return r.TLS }) {
		if e.tls, err = certs.LoadOrCreate(filepath.Join(x.Dir, "tls"), e.lab.Addrs()...); err != nil {
			return nil, err
		}
		// Brokers the experiment starts take TLS too, with its
		// certificates, beside plain clients.
		bcfg.TLSDir, bcfg.MTLS = filepath.Join(x.Dir, "tls"), s.MTLS
	}
	bcfg, addrs := kernelBrokers(e.lab, bcfg, x.BrokerAddrs)
	e.brokers = newBrokerSet(bcfg, addrs)
	e.brokers.onStart = x.OnBroker
	defer e.brokers.close(ctx)
	if e.agents, err = dialHosts(ctx, s.Hosts, x.AgentAuth); err != nil {
		return nil, err
	}
	defer e.agents.close()
	if len(s.Codecs) > 0 {
		if err := x.timeCodecs(ctx, s, runs); err != nil {
			return nil, err
		}
	}
	var recs []results.Record
	for i, r := range runs {
		if ctx.Err() != nil {
			break
		}
		if x.OnRun != nil {
			x.OnRun(i, len(runs), r)
		}
		rec := e.run(ctx, r)
		if err := results.Append(filepath.Join(x.Dir, ResultsFile), rec); err != nil {
			return recs, err
		}
		recs = append(recs, *rec)
		if x.OnRecord != nil {
			x.OnRecord(rec)
		}
	}
	return recs, ctx.Err()
}

// execution is one experiment in progress.
type execution struct {
	*Runner
	spec *Spec
	pin  *pinning
	env  environment.Environment
	tls  *certs.Bundle
	// brokers are the experiment's brokers, started as runs need them.
	brokers *brokerSet
	// measuring is the experiment's lease as a hopbench process measuring
	// on this machine, by which others see it and it sees them.
	measuring *lease.Lease
	// lab is the experiment's hosts when its runs cross the kernel's
	// emulated network; nil otherwise.
	lab *network.Lab
	// jvm is how the JVM's nodes start, when some runs have them.
	jvm *jvmSetup
	// agents are the sessions on the spec's hosts, when it has hosts.
	agents agents
}

// errNodeExited ends a run whose node went away; errBrokerExited one whose
// broker did.
var (
	errNodeExited      = errors.New("a node exited during the run")
	errBrokerExited    = errors.New("the broker exited during the run")
	errNodeUnavailable = errors.New("a node said it could not serve")
)

func (e *execution) run(ctx context.Context, r Run) *results.Record {
	rec := r.Record()
	rec.Experiment, rec.Study, rec.Scale = e.spec.Name, e.spec.Study, e.spec.scale
	rec.Environment, rec.Pinning, rec.Calibration = e.env, e.pin.String(), e.Calibration
	others := lease.Measuring(e.measuring)
	if err := e.measure(ctx, r, rec); err != nil {
		rec.Outcome, rec.Reason = results.OutcomeFailed, err.Error()
		if ctx.Err() != nil {
			rec.Outcome = results.OutcomeInterrupted
		}
	}
	rec.Ended = time.Now()
	others = append(others, lease.Measuring(e.measuring)...)
	for _, h := range others {
		if s := h.String(); !slices.Contains(rec.OthersMeasuring, s) {
			rec.OthersMeasuring = append(rec.OthersMeasuring, s)
		}
	}
	if len(others) > 0 && e.OnShared != nil {
		e.OnShared(others)
	}
	return rec
}

// measure makes one run in its steps, filling rec: place it (its broker
// and TLS), start its nodes, boot them, dial the entry node, drive the
// load while watching nodes and broker, collect the figures, judge the
// outcome. An error means the run could not be made at all.
func (e *execution) measure(ctx context.Context, r Run, rec *results.Record) error {
	m := &measurement{execution: e, r: r, rec: rec}
	defer m.close()
	for _, step := range []func(context.Context) error{m.emulate, m.place, m.startNodes, m.boot, m.dial, m.evolve} {
		if err := step(ctx); err != nil {
			return err
		}
	}
	runCtx, stopWatching := m.watch(ctx)
	defer stopWatching()
	res, err := m.drive(runCtx)
	if err != nil {
		return err
	}
	m.collect(res)
	rec.Outcome, rec.Reason = outcome(ctx, runCtx, m.brk, m.nodes, rec, res)
	return nil
}

// measurement is one run in the making: what each step of measure leaves
// for the next.
type measurement struct {
	*execution
	r   Run
	rec *results.Record

	top       topology.Topology
	st        transport.Stack
	listen    string
	brk       *broker.Broker
	tlsDir    string
	clientTLS *tls.Config
	nodes     *nodeSet
	insts     []topology.Instance
	tgt       *load.Target
	counter   *wire.Counter
	// runCtx is the run's while it drives the load (admin calls take it).
	runCtx context.Context
	// before is the client's wire count as the window opened; brokerUsage
	// the broker's CPU and memory from then.
	before      wire.Totals
	brokerUsage *usageWindow
	// remote is what the generator hosts measured, merged, and shares
	// each one's, when the run is placed on hosts; hosts their counters.
	remote *agent.Measured
	shares []agent.Measured
	hosts  *hostsWindow
}

// emulate sets up the run's emulated network, if it has one (in kernel
// mode, hosts of their own for the generator and each node), and measures
// it as the run's connections will cross it: what its figures were made
// under.
func (m *measurement) emulate(ctx context.Context) error {
	r := m.r
	if r.Network.IsLoopback() && !r.kernelNetwork() {
		return nil
	}
	var measured network.Measured
	var err error
	if r.kernelNetwork() {
		if err := m.lab.Shape(r.Network); err != nil {
			return err
		}
		measured, err = network.MeasureKernel(ctx, r.Network, m.lab.Hosts()[0], m.lab.Hosts()[1])
	} else {
		measured, err = network.Measure(ctx, r.Network)
	}
	if err != nil {
		return err
	}
	m.rec.Network = &measured
	return nil
}

// kernelLab makes the experiment's hosts when its runs cross the kernel's
// emulated network: a host for the generator and one for each node of the
// largest topology, the brokers on the lab's address here. It first
// refuses, before anything starts, what this machine cannot make (no root,
// no tbf, delay without netem), and removes the namespaces of earlier runs
// that died without removing them.
func kernelLab(runs []Run) (*network.Lab, error) {
	if !slices.ContainsFunc(runs, Run.kernelNetwork) {
		return nil, nil
	}
	hosts := 0
	caps := network.Detect()
	for _, r := range runs {
		if !r.kernelNetwork() {
			continue
		}
		if err := r.Network.CheckKernel(caps); err != nil {
			return nil, err
		}
		top, _ := topology.Parse(r.Topology) // validated
		hosts = max(hosts, top.Nodes()+1)
	}
	if err := network.CleanStale(); err != nil {
		return nil, err
	}
	return network.NewLab(hosts)
}

// kernelBrokers places the brokers on the lab's address, beside hopbench,
// with data of their own.
func kernelBrokers(lab *network.Lab, cfg broker.Config, addrs map[string]string) (broker.Config, map[string]string) {
	if lab == nil {
		return cfg, addrs
	}
	out := map[string]string{}
	for name, addr := range broker.DefaultAddr {
		_, port, _ := net.SplitHostPort(addr)
		out[name] = net.JoinHostPort(lab.Here, port)
	}
	cfg.Dir = filepath.Join(cmp.Or(cfg.Dir, broker.DefaultDir()), "lab")
	return cfg, out
}

// from dials the generator's connections: from its own host when the
// kernel emulates the network, else from here.
func (m *measurement) from() func(ctx context.Context, network, addr string) (net.Conn, error) {
	if m.lab == nil || !m.r.kernelNetwork() {
		return nil
	}
	return m.lab.Hosts()[0].DialContext
}

// hostOf places node i on its host of the lab, if the run has one.
func (m *measurement) hostOf() func(int) ([]string, string) {
	if m.lab == nil || !m.r.kernelNetwork() {
		return nil
	}
	return func(i int) ([]string, string) {
		h := m.lab.Hosts()[i+1]
		return h.Exec(), h.Addr
	}
}

// place resolves where the nodes listen (a broker stack's broker, made
// sure of) and how the run's connections are encrypted.
func (m *measurement) place(ctx context.Context) (err error) {
	m.top, _ = topology.Parse(m.r.Topology) // validated
	m.st, _ = transport.ParseStack(m.r.Stack)
	if m.listen, m.brk, err = m.placement(ctx, m.r, m.st, m.rec); err != nil {
		return err
	}
	m.tlsDir, m.clientTLS, err = m.runTLS(m.r, m.brk, m.top, m.rec)
	return err
}

// startNodes starts the topology's nodes as child processes.
func (m *measurement) startNodes(ctx context.Context) error {
	r := m.r
	m.nodes = &nodeSet{limit: int64(r.Memory), name: fmt.Sprintf("hopbench-%d-run%d", os.Getpid(), r.Index), reset: m.resetNode}
	pc := topology.ProcessConfig{
		Bin: m.Bin, Listen: m.listen, Args: func(i int) []string { return m.nodeArgs(r, i, m.tlsDir, m.clientTLS) }, Prefix: m.pin.prefix(), Host: m.hostOf(),
		Env: nodeEnv(m.Env, r), Started: m.nodes.started, Stderr: m.NodeStderr,
	}
	if r.OnJVM() {
		pc.Command, pc.Args = m.jvm.command(r), func(int) []string { return m.jvm.args(r) }
	}
	start := topology.Processes(pc)
	if r.Placement != nil {
		start, m.nodes.remote = m.startOn(), true
	}
	insts, err := topology.Start(ctx, m.top, start)
	if err != nil {
		return err
	}
	m.insts = insts
	m.nodes.set(insts)
	return nil
}

func (m *measurement) transportConfig() transport.Config {
	return transport.Config{HTTP2: m.r.HTTP2, Options: m.r.TransportOptions, ClientTLS: m.clientTLS}
}

// boot times each node to its first good reply.
func (m *measurement) boot(ctx context.Context) (err error) {
	m.rec.Nodes, err = m.nodes.boot(ctx, m.st, m.transportConfig())
	return err
}

// dial connects the generator to the entry node, counting its bytes.
func (m *measurement) dial(ctx context.Context) (err error) {
	r := m.r
	m.counter = &wire.Counter{}
	if r.Placement != nil {
		return nil // the generator hosts dial it
	}
	tcfg := m.transportConfig()
	tcfg.Dialer = &wire.Dialer{Counter: m.counter, Network: r.inProcess(), From: m.from()}
	m.tgt, err = load.DialTarget(ctx, load.TargetConfig{Stack: m.st, Addr: m.insts[0].Addr(), Transport: tcfg,
		Op: transport.Op(r.Op), Model: r.Model, Count: r.Count, Seed: r.Seed, Schema: r.SchemaPath().Sender(),
		Connections: r.Connections, PerRequest: r.PerRequest})
	return err
}

// evolve, in a run with a schema set, sends a message of each schema
// change through the live nodes in echo, on a client of its own (whose
// bytes the load's figures do not count), and records what came back.
func (m *measurement) evolve(ctx context.Context) error {
	p := m.r.SchemaPath()
	if p == nil {
		return nil
	}
	tr, _ := transport.Lookup(m.st.Transport)
	tcfg := m.transportConfig()
	tcfg.Dialer = &wire.Dialer{Counter: &wire.Counter{}, Network: m.r.inProcess(), From: m.from()}
	cl, err := transport.Dial(ctx, tr, m.insts[0].Addr(), tcfg)
	if err != nil {
		return fmt.Errorf("dialling the entry node for the schema trials: %w", err)
	}
	defer cl.Close()
	m.rec.Evolution, err = evolution.Live(ctx, cl, m.st, p, evolution.TrialCounts, m.r.Seed, time.Duration(m.r.Timeout))
	return err
}

// watch returns a context that ends, with the cause, if a node or the
// broker dies or a node says it cannot serve, until stop: through the
// load and the collecting of figures after it.
func (m *measurement) watch(ctx context.Context) (runCtx context.Context, stop func()) {
	runCtx, cancel := context.WithCancelCause(ctx)
	stops := []func(){m.nodes.watch(func() { cancel(errNodeExited) })}
	if m.brk != nil {
		stops = append(stops, watchBroker(m.brk, func() { cancel(errBrokerExited) }),
			m.nodes.watchHealth(func(why string) { m.nodes.lost = why; cancel(errNodeUnavailable) }))
	}
	return runCtx, func() {
		for _, s := range stops {
			s()
		}
		cancel(nil)
	}
}

// drive runs the load until its end or runCtx's.
func (m *measurement) drive(runCtx context.Context) (*load.Result, error) {
	cfg := m.r.LoadConfig()
	m.runCtx = runCtx
	if m.r.Placement != nil {
		return m.driveOn(runCtx, cfg)
	}
	cfg.AtStart = m.windowOpens
	if m.OnSecond != nil {
		cfg.Progress = func(s results.Second) { m.OnSecond(m.r, s) }
	}
	unpin, err := m.pin.pinGenerator()
	if err != nil {
		return nil, err
	}
	defer unpin()
	m.runCtx = runCtx
	return m.generate(runCtx, m.r, cfg, m.tgt, m.insts[0].Addr(), &wire.Dialer{Counter: m.counter, Network: m.r.inProcess(), From: m.from()})
}

// windowOpens notes every count the measured window is taken from.
func (m *measurement) windowOpens() {
	m.before = m.counter.Snapshot()
	m.nodes.windowStart(m.runCtx)
	if m.r.Placement != nil {
		m.hosts = startHosts(m.runCtx, m.agents, m.runPIDs())
	}
	if m.brk != nil && m.brk.PID != 0 {
		m.brokerUsage = startUsage([]int{m.brk.PID})
	}
}

// collect writes the window's figures into the record: the generator's,
// the nodes' and the broker's.
func (m *measurement) collect(res *load.Result) {
	clientWire := m.counter.Snapshot().Sub(m.before)
	if m.remote != nil {
		clientWire = m.remote.Wire
		recordLoad(m.rec, res, m.remote.RequestBytes, m.remote.RawRequestBytes, m.remote.ReplyBytes, clientWire)
	} else {
		recordLoad(m.rec, res, m.tgt.RequestBytes(), m.tgt.RawRequestBytes(), m.tgt.ReplyBytes(), clientWire)
	}
	// Figures are read even from a run cut short: what was measured stays.
	ctx := context.WithoutCancel(m.runCtx)
	m.nodes.windowEnd(ctx, m.rec.Nodes, res.Requests)
	if m.brk != nil {
		recordBroker(m.rec, m.brk, m.brokerUsage, res.Requests, clientWire)
	}
	if m.hosts != nil { // after the broker's record, which it completes
		m.recordHosts(m.hosts.end(ctx, res.Requests))
	}
}

func (m *measurement) close() {
	if m.tgt != nil {
		m.tgt.Close()
	}
	if m.nodes != nil {
		m.nodes.close()
	}
}

// placement resolves the stack's options into rec and says where its
// nodes listen: on loopback, or for a broker stack on its broker, which
// it makes sure is up.
func (e *execution) placement(ctx context.Context, r Run, st transport.Stack, rec *results.Record) (string, *broker.Broker, error) {
	tr, _ := transport.Lookup(st.Transport)
	opts, err := transport.ResolveOptions(tr, r.TransportOptions)
	if err != nil {
		return "", nil, err
	}
	if len(opts) > 0 {
		rec.TransportOptions = opts
	}
	name := transport.BrokerOf(tr)
	if name == "" {
		return "127.0.0.1:0", nil, nil
	}
	ensure := e.brokers.ensure
	if r.Placement != nil {
		ensure = e.agents[r.Placement.Broker].StartBroker
	}
	brk, err := ensure(ctx, name)
	if err != nil {
		return "", nil, err
	}
	addr := brk.Addr
	if r.TLS {
		if err := brk.NeedTLS(r.MTLS); err != nil {
			return "", nil, err
		}
		addr = brk.TLSAddr
	}
	// No name: each node gets a queue, topic or subject of its own.
	return tr.(transport.Brokered).Scheme() + "://" + addr + "/", brk, nil
}

// runTLS says how a run's connections are encrypted, and records it: the
// certificates' directory its nodes get and its generator's client TLS.
// Every leg of a broker stack ends at the broker, so it uses the broker's
// certificates (its own, if another hopbench started it) and presents a
// client certificate whenever the broker requires one.
func (e *execution) runTLS(r Run, brk *broker.Broker, top topology.Topology, rec *results.Record) (string, *tls.Config, error) {
	if !r.TLS {
		return "", nil, nil
	}
	dir, bundle, mutual := filepath.Join(e.Dir, "tls"), e.tls, r.MTLS
	legs := []string{"generator→node"}
	if top.Nodes() > 1 {
		legs = append(legs, "node→node")
	}
	if brk != nil {
		mutual = mutual || brk.MTLS
		legs = []string{"generator↔broker", "nodes↔broker"}
		if brk.TLSDir != dir { // another hopbench's broker: its certificates
			own, err := certs.Load(brk.TLSDir)
			if err != nil {
				return "", nil, fmt.Errorf("the %s broker's certificates: %w", brk.Name, err)
			}
			dir, bundle = brk.TLSDir, own
		}
	}
	rec.Encrypted = &results.Encryption{Legs: legs, Mutual: mutual}
	return dir, bundle.Client(mutual), nil
}

// recordLoad writes what the generator measured into rec.
func recordLoad(rec *results.Record, res *load.Result, request, rawRequest, reply int, clientWire wire.Totals) {
	rec.Figures = res.Figures(clientWire)
	rec.RequestBodyBytes, rec.RequestBodyRawBytes, rec.ResponseBodyBytes = request, rawRequest, reply
	rec.Series, rec.Steps = res.Series, res.Steps
	rec.Histogram, _ = stats.Encode(res.Latency)
	if res.Uncorrected != nil {
		rec.UncorrectedHistogram, _ = stats.Encode(res.Uncorrected)
	}
}

// recordBroker writes the broker's figures over the window into rec; its
// nodes' figures must be in rec already.
func recordBroker(rec *results.Record, brk *broker.Broker, usage *usageWindow, requests int64, clientWire wire.Totals) {
	rec.Brokers = []results.Broker{brokerRecord(brk)}
	if u := usage.end(requests); len(u) == 1 {
		rec.Brokers[0].Usage = u[0]
	}
	if requests > 0 {
		// Every byte to or from the broker is a client's: the load
		// generator's and the nodes'.
		w := nodesWire(rec.Nodes)
		n := float64(requests)
		rec.Brokers[0].Wire = &results.WirePerRequest{Sent: float64(clientWire.Written+w.Written) / n, Received: float64(clientWire.Read+w.Read) / n}
	}
}

// outcome says how a run that was made ended: what cut it short, if
// anything, or whether its calls all succeeded. A run whose calls failed
// loses its latency and throughput figures here: none stands for the
// service.
func outcome(ctx, runCtx context.Context, brk *broker.Broker, nodes *nodeSet, rec *results.Record, res *load.Result) (string, string) {
	switch {
	case context.Cause(runCtx) == errBrokerExited:
		return results.OutcomeBrokerDied, brokerExited(brk)
	case context.Cause(runCtx) == errNodeExited:
		return nodes.exitOutcome(rec.Nodes)
	case context.Cause(runCtx) == errNodeUnavailable && brk.Gone():
		return results.OutcomeBrokerDied, brokerExited(brk)
	case context.Cause(runCtx) == errNodeUnavailable:
		return results.OutcomeNodeUnavailable, nodes.lost + "; the broker lived on"
	case nodes != nil && nodes.resetErr != nil:
		return results.OutcomeFailed, nodes.resetErr.Error()
	case ctx.Err() != nil:
		return results.OutcomeInterrupted, "stopped before the end of the run; figures are partial"
	case res.Capacity != nil:
		return capacityOutcome(res)
	}
	if why := res.CallsFailed(); why != "" {
		rec.Figures.Withhold()
		rec.Histogram, rec.UncorrectedHistogram, rec.Series, rec.Steps = "", "", nil, nil
		return results.OutcomeCallsFailed, why
	}
	switch {
	case res.NotSent > 0:
		return results.OutcomeErrors, fmt.Sprintf("the generator never sent %d requests due in the window (it fell that far behind the rate)", res.NotSent)
	case res.Errors > 0:
		return results.OutcomeErrors, ""
	}
	return results.OutcomeOK, ""
}

// capacityOutcome judges a capacity search by its probe at the capacity:
// the probes above it fail by design, and replies over the SLA at the
// capacity are the tail its percentile allows; calls that failed there
// are errors.
func capacityOutcome(res *load.Result) (string, string) {
	c := res.Capacity
	if c.Step < 0 {
		return results.OutcomeErrors, "no capacity: " + c.Ended
	}
	if res.Steps[c.Step].Failed() > 0 {
		return results.OutcomeErrors, ""
	}
	return results.OutcomeOK, ""
}

// generate runs the load against the entry node at addr: hopbench's engine
// through the dialled target, or the independent cross-check client.
func (e *execution) generate(ctx context.Context, r Run, cfg load.Config, tgt *load.Target, addr string, dialer *wire.Dialer) (*load.Result, error) {
	if r.Generator != GeneratorIndependent {
		return load.Run(ctx, cfg, tgt.NewCall)
	}
	return crosscheck.Run(ctx, crosscheck.Config{
		Addr: addr, Op: transport.Op(r.Op), Model: r.Model, Count: r.Count, Seed: r.Seed,
		Rate: cfg.Rate, Warmup: cfg.Warmup, Duration: cfg.Duration, SLA: cfg.SLA, Timeout: cfg.Timeout,
		Dial: dialer.DialContext, AtStart: cfg.AtStart,
	})
}

// nodeEnv is the nodes' environment: the runner's, and the Go runtime's
// soft memory limit the run sets, or off when it sets none; last, so that
// it wins over a GOMEMLIMIT the nodes would otherwise inherit and the
// record says what ran.
func nodeEnv(env []string, r Run) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "GOMEMLIMIT=") })
	if r.GoMemLimit > 0 {
		return append(out, fmt.Sprintf("GOMEMLIMIT=%d", int64(r.GoMemLimit)))
	}
	return append(out, "GOMEMLIMIT=off")
}

// nodeArgs are node i's flags in run r.
func (e *execution) nodeArgs(r Run, i int, tlsDir string, clientTLS *tls.Config) []string {
	args := []string{"--stack", r.Stack, "--seed", strconv.FormatUint(r.Seed, 10)}
	if p := r.SchemaPath(); p != nil {
		args = append(args, "--schema", string(p.Node(i)))
	}
	for _, k := range slices.Sorted(maps.Keys(r.TransportOptions)) {
		args = append(args, "--option", k+"="+r.TransportOptions[k])
	}
	if r.HTTP2 {
		args = append(args, "--http2")
	}
	if r.Cache {
		args = append(args, "--cache")
	}
	if tlsDir != "" {
		args = append(args, "--tls-dir", tlsDir)
	}
	if clientTLS != nil && len(clientTLS.Certificates) > 0 {
		args = append(args, "--mtls")
	}
	// A load whose clients outnumber a node's default connection cap
	// (possible once limits are raised) gets nodes that take them all,
	// and the calls between nodes besides.
	if peak := r.LoadConfig().PeakConcurrency() + 64; peak > transport.DefaultMaxConns {
		args = append(args, "--max-conns", strconv.Itoa(peak))
	}
	if p := r.inProcess(); !p.IsLoopback() {
		args = append(args, "--network", p.String())
	}
	return args
}

// runningNode is a node as a run sees it: a child process here
// (topology.Process) or one an agent runs on its host (agent.Node).
type runningNode interface {
	Addr() string
	AdminAddr() string
	PID() int
	Spawned() time.Time
	Done() <-chan struct{}
	// Exit says how it ended; "" while it runs.
	Exit() string
}

// nodeSet is a run's node processes with their memory groups and figures.
type nodeSet struct {
	limit  int64
	name   string
	mu     sync.Mutex
	groups map[int]*cgroup.Memory
	procs  []runningNode
	insts  []topology.Instance
	// remote nodes run on hosts of their own: their agents read their
	// usage, not this machine's /proc.
	remote bool
	usage  *usageWindow
	// lost says which node reported it could not serve, and why.
	lost string
	// reset zeroes a node's figures (default: POST /reset to its admin);
	// resetErr is the first failure to.
	reset    func(ctx context.Context, adminAddr string) error
	resetErr error
}

// started places a node in its memory group as soon as it exists.
func (n *nodeSet) started(i, pid int) error {
	if n.limit == 0 {
		return nil
	}
	g, err := cgroup.NewMemory(fmt.Sprintf("%s-node%d", n.name, i), n.limit)
	if err != nil {
		return err
	}
	n.mu.Lock()
	if n.groups == nil {
		n.groups = map[int]*cgroup.Memory{}
	}
	n.groups[i] = g
	n.mu.Unlock()
	return g.Add(pid)
}

func (n *nodeSet) set(insts []topology.Instance) {
	n.insts = insts
	for _, in := range insts {
		n.procs = append(n.procs, in.(runningNode))
	}
}

// boot times each node from its spawn to its first good reply.
func (n *nodeSet) boot(ctx context.Context, st transport.Stack, tcfg transport.Config) ([]results.Node, error) {
	out := make([]results.Node, len(n.procs))
	for i, p := range n.procs {
		out[i] = results.Node{Index: i, PID: p.PID()}
		probe, err := load.DialTarget(ctx, load.TargetConfig{Stack: st, Addr: p.Addr(), Transport: tcfg, Op: transport.OpEcho, Model: "int", Count: 1})
		if err != nil {
			return nil, fmt.Errorf("node %d: %w", i, err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for err = probe.Probe(ctx); err != nil && time.Now().Before(deadline) && ctx.Err() == nil; err = probe.Probe(ctx) {
			time.Sleep(5 * time.Millisecond)
		}
		probe.Close()
		if err != nil {
			return nil, fmt.Errorf("node %d gave no good reply within 30s: %w", i, err)
		}
		out[i].BootMs = float64(time.Since(p.Spawned()).Microseconds()) / 1000
	}
	return out, nil
}

// watch calls exited once if any node ends before the run does.
func (n *nodeSet) watch(exited func()) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for _, p := range n.procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-p.Done():
				exited()
			case <-done:
			}
		}()
	}
	return func() { close(done); wg.Wait() }
}

// watchHealth calls unavailable once if any node's admin /ready answers
// 503 (a broker stack's node that lost its broker connection) before the
// run ends. It asks every half second, only of broker stacks' nodes.
func (n *nodeSet) watchHealth(unavailable func(why string)) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if why := n.unavailable(ctx); why != "" {
				unavailable(why)
				return
			}
		}
	}()
	return func() { cancel(); <-finished }
}

// unavailable says which node answers /ready with 503 and why; "" when
// none does. A node that does not answer at all is the exit watch's.
func (n *nodeSet) unavailable(ctx context.Context) string {
	for i, p := range n.procs {
		resp, err := adminCall(ctx, http.MethodGet, p.AdminAddr(), "/ready")
		if err != nil {
			continue
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			return fmt.Sprintf("node %d: %s", i, strings.TrimSpace(string(body)))
		}
	}
	return ""
}

// windowStart zeroes the nodes' own figures and peak RSS as the measured
// window opens, and notes their CPU time.
// A node whose /reset fails fails the run: its figures would include the
// warm-up.
func (n *nodeSet) windowStart(ctx context.Context) {
	reset := n.reset
	if reset == nil {
		reset = func(ctx context.Context, addr string) error { return post(ctx, addr, "/reset") }
	}
	pids := make([]int, len(n.procs))
	for i, p := range n.procs {
		if err := reset(ctx, p.AdminAddr()); err != nil && n.resetErr == nil {
			n.resetErr = fmt.Errorf("node %d: its admin /reset failed (%v), so its figures would include the warm-up", i, err)
		}
		pids[i] = p.PID()
	}
	if !n.remote {
		n.usage = startUsage(pids)
	}
}

// windowEnd reads each node's figures for the window into out; a node
// whose /stats cannot be read says why.
func (n *nodeSet) windowEnd(ctx context.Context, out []results.Node, requests int64) {
	var err error
	usage := n.usage.end(requests)
	for i, p := range n.procs {
		if usage != nil {
			out[i].Usage = usage[i]
		}
		if out[i].Stats, err = nodeStats(ctx, p.AdminAddr()); err != nil {
			out[i].StatsError = err.Error()
		}
	}
}

// nodesWire sums the bytes the nodes' own connections carried, from their
// stats.
func nodesWire(nodes []results.Node) wire.Totals {
	var total wire.Totals
	for _, n := range nodes {
		if n.Stats != nil && n.Stats.Wire != nil {
			total.Written += n.Stats.Wire.Written
			total.Read += n.Stats.Wire.Read
		}
	}
	return total
}

// watchBroker calls exited once if the run's broker exits before the run
// ends: at once for one this experiment started, within a quarter second
// for one it found running.
func watchBroker(b *broker.Broker, exited func()) (stop func()) {
	stopped, finished := make(chan struct{}), make(chan struct{})
	tick := time.NewTicker(250 * time.Millisecond)
	go func() {
		defer close(finished)
		defer tick.Stop()
		for {
			select {
			case <-b.Done(): // nil, never ready, unless this process started it
				exited()
				return
			case <-tick.C:
				if b.Gone() {
					exited()
					return
				}
			case <-stopped:
				return
			}
		}
	}()
	return func() { close(stopped); <-finished }
}

// exitOutcome says which node ended the run and why.
func (n *nodeSet) exitOutcome(out []results.Node) (outcome, reason string) {
	outcome, reason = results.OutcomeNodeDied, ""
	for i, p := range n.procs {
		st := p.Exit()
		if st == "" {
			continue
		}
		out[i].Exit = st
		if g := n.groups[i]; g != nil && g.OOMKills() > 0 {
			return results.OutcomeOutOfMemory, fmt.Sprintf("node %d was killed by its %d MiB memory limit", i, n.limit>>20)
		}
		reason = fmt.Sprintf("node %d exited during the run: %s", i, st)
	}
	return outcome, reason
}

func (n *nodeSet) close() {
	topology.Close(n.insts)
	for _, g := range n.groups {
		g.Close()
	}
}

var admin = &http.Client{Timeout: 5 * time.Second}

// adminCall makes one call to a node's admin endpoint, bounded by ctx and
// by the admin client's own timeout.
func adminCall(ctx context.Context, method, addr, path string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, "http://"+addr+path, nil)
	if err != nil {
		return nil, err
	}
	return admin.Do(req)
}

func post(ctx context.Context, addr, path string) error {
	resp, err := adminCall(ctx, http.MethodPost, addr, path)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("POST %s: %s", path, resp.Status)
	}
	return nil
}

// nodeStats reads a node's figures from its admin endpoint, as the node
// contract types them.
func nodeStats(ctx context.Context, addr string) (*nodeapi.Stats, error) {
	resp, err := adminCall(ctx, http.MethodGet, addr, "/stats")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /stats: %s", resp.Status)
	}
	var s nodeapi.Stats
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&s); err != nil {
		return nil, fmt.Errorf("GET /stats: %w", err)
	}
	return &s, nil
}
