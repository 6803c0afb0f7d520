package experiment

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/network"
	"github.com/hopbench/hopbench/internal/oneway"
	"github.com/hopbench/hopbench/internal/placement"
	"github.com/hopbench/hopbench/internal/proxy"
	"github.com/hopbench/hopbench/internal/ranking"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/userschema"
)

// Run is one cell of the matrix: everything one measurement needs. It is
// written into its result record as the run's config.
type Run struct {
	Index int `json:"index"`
	// Part is the part of the spec the run belongs to, if it has parts.
	Part       string `json:"part,omitempty"`
	Repetition int    `json:"repetition"`
	Stack      string `json:"stack"`
	Topology   string `json:"topology"`
	Op         string `json:"op"`
	Model      string `json:"model"`
	Count      int    `json:"count"`
	// Proto is the user's message Model names, when it is one.
	Proto *userschema.Source `json:"proto,omitempty"`
	// ProtoV2 is its version 2, when a schema trial tries the change.
	ProtoV2  *userschema.Files `json:"proto_v2,omitempty"`
	Load     load.Model        `json:"load"`
	Duration Duration          `json:"duration"`
	Requests int64             `json:"requests,omitempty"`
	Warmup   Duration          `json:"warmup"`
	SLA      Duration          `json:"sla"`
	Timeout  Duration          `json:"timeout"`
	TLS      bool              `json:"tls"`
	MTLS     bool              `json:"mtls"`
	HTTP2    bool              `json:"http2"`
	Cache    bool              `json:"cache"`
	Pin      string            `json:"pin"`
	Memory   ByteSize          `json:"memory,omitempty"`
	// Limits are the spec's raised bounds on loads, if any.
	Limits      *load.Limits `json:"limits,omitempty"`
	Connections int          `json:"connections"`
	// PerRequest: a new connection (and with TLS a handshake) every call.
	PerRequest bool   `json:"per_request,omitempty"`
	Seed       uint64 `json:"seed"`
	// OrderSeed, with the repetition, seeded the shuffle that put the run
	// where it is in the experiment (Index); 0 when runs went as listed.
	OrderSeed uint64 `json:"order_seed,omitempty"`
	// Rounds is the spec's repetitions when they go on until decided, and
	// Alpha the level they were decided at: with the records, a report
	// says why each case stopped.
	Rounds *ranking.Repetitions `json:"rounds,omitempty"`
	Alpha  float64              `json:"alpha,omitempty"`
	// GoMemLimit is the soft memory limit (GOMEMLIMIT) the nodes' Go
	// runtime had, in bytes; 0 for none.
	GoMemLimit ByteSize `json:"gomemlimit_bytes,omitempty"`
	// Generator is what drove the entry node: hopbench's load engine, or
	// the independent cross-check client.
	Generator string `json:"generator,omitempty"`
	// TransportOptions are the stack's own settings given in the spec.
	TransportOptions map[string]string `json:"transport_options,omitempty"`
	// Network is the emulated network every hop of the run crosses;
	// loopback (the zero profile) emulates nothing. NetworkMode is how:
	// empty for in process, or kernel.
	Network     network.Profile `json:"network,omitzero"`
	NetworkMode string          `json:"network_mode,omitempty"`
	// Proxy is the proxies on the run's hops; nil for none.
	Proxy *proxy.Settings `json:"proxy,omitempty"`
	// Runtime is what the nodes run on: empty for Go (hopbench node), or
	// jvm; JVMFlags are then the JVM's flags each node had.
	Runtime  string   `json:"runtime,omitempty"`
	JVMFlags []string `json:"jvm_flags,omitempty"`
	// Schema is the payload schema's versions of the run, as the spec
	// gave them: one for the generator and every node ("v2"), or a path,
	// the generator's first and then each node's, the entry node first
	// ("v2,v1,v2"); empty for v1 everywhere.
	Schema string `json:"schema,omitempty"`
	// Placement puts the generator and each node on the spec's hosts;
	// nil for a run on this machine alone.
	Placement *placement.Placement `json:"placement,omitempty"`
	// OneWay, when set, makes the run one-way messaging over its broker
	// stack: the generator publishes, consumers take the messages later,
	// and no node runs.
	OneWay *oneway.Shape `json:"oneway,omitempty"`
	// FreshBroker starts the run's broker anew before it.
	FreshBroker bool `json:"fresh_broker,omitempty"`
	// brokered says the run's stack talks through a broker (set with its
	// stack by the matrix).
	brokered bool
}

// OnJVM reports whether the run's nodes run on the JVM.
func (r Run) OnJVM() bool { return r.Runtime == jvm.JVM }

// DefaultDuration is a run's measured time when the spec gives neither a
// duration nor a request count (ramps default to every step once).
const DefaultDuration = 10 * time.Second

// Runs expands the matrix. Repetitions are outermost, across parts too,
// so every case is measured once before any is measured again; within a
// repetition the runs are shuffled (seeded by the spec's seed and the
// repetition) unless the order is listed, so a case's place in time, and
// whatever the machine did then, does not line up with its stack.
func (s *Spec) Runs() []Run {
	var all []Run
	if len(s.parts) == 0 {
		all = s.matrix()
	}
	for _, p := range s.parts {
		all = append(all, p.matrix()...)
	}
	reps := 0
	for _, r := range all {
		reps = max(reps, r.Repetition+1)
	}
	runs := make([]Run, 0, len(all))
	for rep := range reps {
		start := len(runs)
		for _, r := range all {
			if r.Repetition == rep {
				runs = append(runs, r)
			}
		}
		if s.Order != OrderListed {
			batch := runs[start:]
			rand.New(rand.NewPCG(s.Seed, uint64(rep))).Shuffle(len(batch), func(i, j int) { batch[i], batch[j] = batch[j], batch[i] })
			for i := range batch {
				batch[i].OrderSeed = s.Seed
			}
		}
	}
	for i := range runs {
		runs[i].Index = i
	}
	return runs
}

// matrix is every combination of the spec's lists, repetitions
// outermost and stacks innermost.
func (s *Spec) matrix() []Run {
	var runs []Run
	for rep := range s.Repetitions.Rounds() {
		for _, top := range s.Topologies {
			for _, p := range s.Payloads {
				for _, count := range p.Counts {
					for _, op := range s.Ops {
						for _, l := range s.Loads {
							runs = append(runs, s.variants(rep, top, p.Model, count, op, l)...)
						}
					}
				}
			}
		}
	}
	return runs
}

// variants are one case's runs across the switches and stacks, the
// switches outermost in the order written and stacks innermost.
func (s *Spec) variants(rep int, top, model string, count int, op string, l load.Model) []Run {
	base := s.run(top, model, count, op, l)
	base.Repetition = rep
	if s.NetworkMode == network.Kernel {
		base.NetworkMode = network.Kernel
	}
	runs := []Run{base}
	runs = expand(runs, s.TLS, func(r *Run, tls bool) { r.TLS, r.MTLS = tls, tls && s.MTLS })
	runs = expand(runs, s.HTTP2, func(r *Run, h2 bool) { r.HTTP2 = h2 })
	runs = expand(runs, s.Cache, func(r *Run, cache bool) { r.Cache = cache })
	runs = expand(runs, s.Generators, func(r *Run, gen string) { r.Generator = gen })
	runs = expand(runs, s.Connections, func(r *Run, c load.ConnMode) { r.Connections, r.PerRequest = c.Pooled, c.PerRequest })
	runs = expand(runs, s.Networks, func(r *Run, net network.Profile) { r.Network = net })
	runs = expand(runs, s.Proxy, func(r *Run, p *proxy.Settings) { r.Proxy = p })
	runs = expand(runs, s.Runtimes, func(r *Run, rt string) {
		if rt == jvm.JVM {
			r.Runtime, r.JVMFlags = rt, jvm.Options{Memory: int64(s.Memory)}.Flags()
		}
	})
	schemas := s.Schemas
	if len(schemas) == 0 {
		schemas = []string{""}
	}
	runs = expand(runs, schemas, func(r *Run, schema string) { r.Schema = schema })
	if len(s.Hosts) > 0 {
		places := s.Placement
		if len(places) == 0 {
			places = placement.List{{}}
		}
		t := s.topologies[top]
		placed := make([]*placement.Placement, len(places))
		for i, p := range places {
			placed[i] = p.Place(i, s.Hosts, t.Nodes())
		}
		runs = expand(runs, placed, func(r *Run, p *placement.Placement) { r.Placement = p })
	}
	return expand(runs, s.Stacks, func(r *Run, stack string) {
		st := s.stacks[stack]
		r.brokered = transport.StackBroker(st) != ""
		r.FreshBroker = s.FreshBrokers && r.brokered
		r.Stack, r.TransportOptions = st.String(), s.TransportOptions.For(st.Transport)
	})
}

// expand is every run of runs with each of vals set by set: a dimension
// of the matrix, innermost of those expanded so far.
func expand[T any](runs []Run, vals []T, set func(*Run, T)) []Run {
	out := make([]Run, 0, len(runs)*len(vals))
	for _, r := range runs {
		for _, v := range vals {
			c := r
			set(&c, v)
			out = append(out, c)
		}
	}
	return out
}

// run is a case's run before its switches and stack are set (variants).
func (s *Spec) run(top, model string, count int, op string, l load.Model) Run {
	r := Run{
		Part: s.part, Topology: top, Op: op, Model: model, Count: count, Load: l,
		Duration: s.Duration, Requests: s.Requests, Warmup: *s.Warmup, SLA: s.SLA, Timeout: s.Timeout,
		Pin: s.Pin, Memory: s.Memory, Seed: s.Seed, Limits: s.Limits,
	}
	for _, p := range s.Payloads {
		if p.Model == model && p.Proto != nil {
			r.Proto, r.ProtoV2 = p.Proto, p.ProtoV2
		}
	}
	if s.Repetitions.Adaptive() {
		rounds := s.Repetitions
		r.Rounds, r.Alpha = &rounds, s.Alpha
	}
	if l.Closed == nil {
		r.Requests = 0
	}
	if l.Capacity != nil {
		// The search's SLA is the run's; its budget is the run's time.
		r.SLA, r.Duration = l.Capacity.SLA, l.Capacity.Budget
		if r.Duration == 0 {
			r.Duration = Duration(load.DefaultBudget)
		}
	}
	r.GoMemLimit = s.goMemLimit()
	if s.Mode == ModeOneWay {
		ow := oneway.Shape{Consumers: 1}
		if s.OneWay != nil {
			ow = *s.OneWay
		}
		r.OneWay = &ow
		if l.Closed != nil {
			// A closed loop's warm-up publishes as fast as the broker takes
			// them and leaves a backlog its window would then consume.
			r.Warmup = 0
		}
	}
	if r.Duration == 0 && r.Requests == 0 {
		r.Duration = Duration(DefaultDuration)
		if l.Ramp != nil {
			c := l.Config()
			r.Duration = Duration(c.Steps.Duration())
		}
	}
	return r
}

// LoadConfig is the engine's configuration for the run.
func (r Run) LoadConfig() load.Config {
	c := r.Load.Config()
	c.Duration, c.Requests, c.Warmup = time.Duration(r.Duration), r.Requests, time.Duration(r.Warmup)
	c.SLA, c.Timeout, c.Seed = time.Duration(r.SLA), time.Duration(r.Timeout), r.Seed
	if r.Limits != nil {
		c.Limits = *r.Limits
	}
	return c
}

// LoadName is the load as tables show it, e.g. closed:32.
func (r Run) LoadName() string {
	c := r.Load.Config()
	return c.String()
}

// Case names the run's configuration without its repetition, after its
// part if the spec has parts.
func (r Run) Case() string {
	parts := []string{r.Stack, r.Topology, r.Op, fmt.Sprintf("%s×%d", r.Model, r.Count), r.LoadName()}
	if r.Part != "" {
		parts = append([]string{r.Part + ":"}, parts...)
	}
	if o := r.Options(); o != "" {
		parts = append(parts, o)
	}
	return strings.Join(parts, " ")
}

// Record starts the run's result record: what was run, named as Case and
// Options name it, with the run's whole configuration (Config), started now.
func (r Run) Record() *results.Record {
	rec := &results.Record{Part: r.Part, Case: r.Case(), Run: r.Index, Repetition: r.Repetition,
		Stack: r.Stack, Topology: r.Topology, Op: r.Op, Model: r.Model, Count: r.Count, Load: r.LoadName(), Options: r.Options(),
		Runtime: r.Runtime, Schema: r.Schema, Started: time.Now()}
	rec.Config, _ = json.Marshal(r) // a Run always marshals: plain fields
	return rec
}

// Options names what the run sets beyond stack, topology, payload and load,
// e.g. "mtls h2 cache" or "100 requests"; empty for none.
func (r Run) Options() string {
	var parts []string
	if r.Requests > 0 {
		parts = append(parts, fmt.Sprintf("%d requests", r.Requests))
	}
	if r.Generator == GeneratorIndependent {
		parts = append(parts, "independent")
	}
	if r.OneWay != nil {
		parts = append(parts, r.OneWay.String(r.TransportOptions))
	}
	for _, flag := range []struct {
		on   bool
		name string
	}{{r.TLS && !r.MTLS, "tls"}, {r.MTLS, "mtls"}, {r.HTTP2, "h2"}, {r.Cache, "cache"}, {r.PerRequest, "per-request"}} {
		if flag.on {
			parts = append(parts, flag.name)
		}
	}
	if r.OnJVM() {
		parts = append(parts, jvm.JVM)
	}
	if r.Schema != "" {
		parts = append(parts, "schema:"+r.Schema)
	}
	if p := r.Placement; p != nil {
		parts = append(parts, "on "+cmp.Or(p.Name, p.StringFor(r.brokered)))
	}
	if r.Proxy != nil {
		parts = append(parts, results.ProxyOption+r.Proxy.String())
	}
	if r.NetworkMode == network.Kernel {
		parts = append(parts, results.NetOption+r.Network.String()+"@kernel")
	} else if !r.Network.IsLoopback() {
		parts = append(parts, results.NetOption+r.Network.String())
	}
	return strings.Join(parts, " ")
}

// RunOverhead is what a run costs beyond its warm-up and measured time:
// starting and stopping its nodes, reading their figures.
const RunOverhead = time.Second

// Estimate is how long the runs take by their warm-ups, measured times (a
// capacity search's budget) and RunOverhead each; a run ended by a request
// count adds only its warm-up and overhead, so the estimate is a floor
// then. Brokers' start-up and calibration come on top.
func Estimate(runs []Run) time.Duration {
	var d time.Duration
	for _, r := range runs {
		d += time.Duration(r.Warmup) + time.Duration(r.Duration) + RunOverhead
	}
	return d
}
