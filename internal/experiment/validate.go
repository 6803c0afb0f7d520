package experiment

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/codecbench"
	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/network"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/placement"
	"github.com/hopbench/hopbench/internal/proxy"
	"github.com/hopbench/hopbench/internal/topology"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/reference"
)

// Validate checks every field and the fields that depend on each other,
// naming the field path and the values allowed. It expects Defaults to
// have run. A spec with parts checks each part's matrix.
func (s *Spec) Validate() error {
	var errs []error
	bad := func(path, format string, args ...any) {
		errs = append(errs, &SpecError{Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	s.validateExperiment(bad)
	if len(s.parts) == 0 {
		errs = append(errs, s.validateMatrix())
	}
	for i, p := range s.parts {
		if err := p.validateMatrix(); err != nil {
			errs = append(errs, fmt.Errorf("parts[%d] (%s): %w", i, p.part, err))
		}
	}
	// Each part's matrix is bounded by its own check; their sum here, from
	// the counts alone (expanding a mistaken matrix would be the mistake).
	total := 0
	for _, p := range s.parts {
		total += p.runCount()
	}
	if total > MaxRuns {
		bad("(top level)", "the parts make %d runs; at most %d: shorten some lists", total, MaxRuns)
	}
	return errors.Join(errs...)
}

// validateExperiment checks what belongs to the experiment as a whole.
func (s *Spec) validateExperiment(bad func(string, string, ...any)) {
	if s.Name != "" && strings.ContainsAny(s.Name, `/\`) {
		bad("name", "%q: a name becomes a directory name; leave out slashes", s.Name)
	}
	if !slices.Contains([]string{"none", "split", "same"}, s.Pin) {
		bad("pin", "%q: want none, split (generator on CPU 0, nodes on the others) or same (all on CPU 0)", s.Pin)
	}
	if s.Order != OrderShuffled && s.Order != OrderListed {
		bad("order", "%q: want shuffled (the default) or listed", s.Order)
	}
	if s.Study != "" {
		if _, err := reference.Lookup(s.Study); err != nil {
			bad("study", "%v", err)
		}
	}
	for i, c := range s.Codecs {
		if _, _, err := codec.ParseName(c); err != nil {
			bad(fmt.Sprintf("codecs[%d]", i), "%v", err)
		}
	}
	switch {
	case s.JMH == nil:
	case len(s.Codecs) == 0 || !s.onJVM():
		bad("jmh", "it sets how the codecs are timed on the JVM, and this spec times none there: add codecs and jvm to runtimes, or leave jmh out")
	default:
		if err := s.JMH.Options(s.Seed).Check(); err != nil {
			bad("jmh", "%v", err)
		}
	}
}

// validateMatrix checks the lists the runs are made of.
func (s *Spec) validateMatrix() error {
	var errs []error
	bad := func(path, format string, args ...any) {
		errs = append(errs, &SpecError{Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	if len(s.Stacks) == 0 {
		bad("stacks", "none given; list at least one of %s (with +codec, +compression as wanted)", strings.Join(transport.Names(), ", "))
	}
	s.stacks, s.topologies = map[string]transport.Stack{}, map[string]topology.Topology{}
	for i, st := range s.Stacks {
		if p, err := transport.ParseStack(st); err != nil {
			bad(fmt.Sprintf("stacks[%d]", i), "%v", err)
		} else if s.stacks[st] = p; slices.Index(s.Stacks, st) != i {
			bad(fmt.Sprintf("stacks[%d]", i), "%q is listed twice", st)
		}
	}
	s.validatePayloads(bad)
	s.TransportOptions.Check("transport_options", slices.Collect(maps.Values(s.stacks)), bad)
	s.validateHosts(bad)
	if s.FreshBrokers && len(s.Hosts) > 0 {
		bad("fresh_brokers", "brokers on hosts are their agents': leave fresh_brokers out, or the hosts")
	}
	for i, top := range s.Topologies {
		if t, err := topology.Parse(top); err != nil {
			bad(fmt.Sprintf("topologies[%d]", i), "%v", err)
		} else {
			s.topologies[top] = t
		}
	}
	s.validateOps(bad)
	s.validateLoads(bad)
	s.validateScalars(bad)
	s.validateOneWay(bad)
	s.refuseByKind(bad)
	var tops []topology.Topology
	for i, top := range s.Topologies {
		if t, ok := s.topologies[top]; ok && slices.Index(s.Topologies, top) == i {
			tops = append(tops, t)
		}
	}
	s.Proxy.Check(proxy.With{Stacks: s.Stacks, Topologies: tops, TLS: slices.Contains(s.TLS, true), HTTP2: slices.Contains(s.HTTP2, true),
		Hosts: len(s.Hosts) > 0, KernelNetwork: s.NetworkMode == network.Kernel}, bad)
	if n := s.runCount(); n > MaxRuns {
		bad("(top level)", "the matrix is %d runs; at most %d: shorten some lists", n, MaxRuns)
	}
	return errors.Join(errs...)
}

// MaxRuns bounds an experiment's matrix; beyond it a spec is more likely
// a mistake than a plan (at 10s a run, 10 000 runs take over a day).
const MaxRuns = 10_000

func (s *Spec) runCount() int {
	counts := 0
	for _, p := range s.Payloads {
		counts += len(p.Counts)
	}
	n := 1
	for _, d := range []int{max(s.Repetitions.Min, 1), len(s.Topologies), counts, len(s.Ops), len(s.Loads), len(s.TLS), len(s.HTTP2), len(s.Cache), len(s.Generators), len(s.Connections), len(s.Networks), len(s.Proxy), len(s.Runtimes), len(s.Schemas), len(s.Placement), len(s.Stacks)} {
		n *= max(d, 1)
		if n > MaxRuns {
			return n
		}
	}
	return n
}

// tooLarge says why count items of m cannot be a request or reply body in
// some stack's codec: encoded (bounded from above, not generated) and
// compressed as the stack does, they could pass the nodes' body limit.
func (s *Spec) tooLarge(m payload.Model, count int) string {
	for _, name := range s.Stacks {
		st, ok := s.stacks[name]
		tr, err := transport.Lookup(st.Transport)
		if !ok || err != nil {
			continue // reported at the stack
		}
		c, _, err := transport.BodyCodec(tr, st) // connect's json is protojson
		z, zerr := codec.LookupCompression(st.Compression)
		if err != nil || zerr != nil {
			continue
		}
		if size := codecbench.BodyPast(m, count, c, z); size > 0 {
			return fmt.Sprintf("%d %s could encode to up to %d bytes in %s (%s), over the %d bytes a body may have: use a smaller count", count, m.Unit, size, codec.Compressed(c, z, 0).Name(), name, codec.DefaultMaxBytes)
		}
	}
	return ""
}

func (s *Spec) validatePayloads(bad func(string, string, ...any)) {
	if len(s.Payloads) == 0 {
		bad("payloads", "none given; e.g. [{model: text, counts: [100]}] (models: %s)", strings.Join(payload.Names(), ", "))
	}
	for i, p := range s.Payloads {
		at := fmt.Sprintf("payloads[%d]", i)
		m, err := s.payloadModel(i)
		if err != nil {
			bad(at+map[bool]string{true: ".proto", false: ".model"}[p.Proto != nil], "%v", err)
			continue
		}
		if p.Proto != nil {
			s.validateProtoCarriers(bad, at, m, p.ProtoV2 != nil)
		}
		if len(p.Counts) == 0 {
			bad(at+".counts", "none given; how many %s per request?", m.Unit)
		}
		for j, c := range p.Counts {
			if err := m.CheckCount(c); err != nil {
				bad(fmt.Sprintf("%s.counts[%d]", at, j), "%v", err)
			} else if msg := s.tooLarge(m, c); msg != "" {
				bad(fmt.Sprintf("%s.counts[%d]", at, j), "%s", msg)
			}
		}
	}
}

func (s *Spec) validateLoads(bad func(string, string, ...any)) {
	if len(s.Loads) == 0 {
		bad("loads", "none given; e.g. [{closed: {clients: 1}}, {rate: {rate: 1000}}]")
	}
	for i, l := range s.Loads {
		at := fmt.Sprintf("loads[%d]", i)
		if !l.Check(at, s.limits(), bad) {
			continue
		}
		if all := l.Config().Steps.Duration(); l.Ramp != nil && s.Duration != 0 && time.Duration(s.Duration) < all {
			bad("duration", "%v ends %s before its last step: its steps take %v; give the ramp that duration, or none (a ramp's default)", time.Duration(s.Duration), at, all)
		}
		if s.Requests > 0 && l.Closed == nil {
			bad("requests", "a request count ends closed loads only; %s is an open or ramped load: give a duration", at)
		}
	}
}

// limits are the spec's bounds on loads: its own, or the defaults.
func (s *Spec) limits() load.Limits {
	if s.Limits == nil {
		return load.Limits{}
	}
	return *s.Limits
}

func (s *Spec) validateScalars(bad func(string, string, ...any)) {
	if err := s.limits().Check(); err != nil {
		bad("limits", "%v", err)
	}
	if s.Requests < 0 {
		bad("requests", "%d: want a positive count", s.Requests)
	}
	if err := s.Repetitions.Check(); err != nil {
		bad("repetitions", "%v", err)
	}
	if s.Alpha <= 0 || s.Alpha >= 0.5 {
		bad("alpha", "%v: want a significance level above 0 and below 0.5, such as 0.05", s.Alpha)
	}
	if s.Memory != 0 && s.Memory < 16<<20 {
		bad("memory", "%d bytes: want at least 16MiB, what a node needs to start", s.Memory)
	}
	if s.GoMemLimit != "" {
		if s.Memory == 0 {
			bad("gomemlimit", "%q sets a share of memory, and memory is not set: set memory (e.g. 400MiB) or leave gomemlimit out", s.GoMemLimit)
		} else if _, err := parseGoMemLimit(s.GoMemLimit); err != nil {
			bad("gomemlimit", "%v", err)
		}
	}
	for i, g := range s.Generators {
		if g != GeneratorHopbench && g != GeneratorIndependent {
			bad(fmt.Sprintf("generators[%d]", i), "%q: want hopbench or independent", g)
		}
	}
	if slices.Contains(s.Generators, GeneratorIndependent) {
		s.validateIndependent(bad)
	}
	if len(s.Network) > 0 && !slices.Equal(s.Network, s.Networks) {
		bad("networks", "give network (one) or networks (a list), not both")
	}
	if err := network.CheckMode(s.NetworkMode); err != nil {
		bad("network_mode", "%v", err)
	}
	s.validateRuntimes(bad)
	s.validateSchemas(bad)
	if s.MTLS && !slices.Contains(s.TLS, true) {
		bad("mtls", "mutual TLS needs tls: true (or [false, true])")
	}
}

// parseGoMemLimit reads a gomemlimit: a share such as 90%, or off (0).
func parseGoMemLimit(v string) (float64, error) {
	if v == "off" {
		return 0, nil
	}
	pct, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
	if !strings.HasSuffix(v, "%") || err != nil || pct <= 0 || pct > 100 {
		return 0, fmt.Errorf("%q: want a share of memory from 1%% to 100%%, e.g. 90%%, or off", v)
	}
	return pct / 100, nil
}

// goMemLimit is the nodes' GOMEMLIMIT in bytes; 0 for none.
func (s *Spec) goMemLimit() ByteSize {
	share, err := parseGoMemLimit(s.GoMemLimit)
	if s.Memory == 0 || s.GoMemLimit == "" || err != nil {
		return 0
	}
	return ByteSize(float64(s.Memory) * share)
}

// validateIndependent checks that the independent generator can drive
// every load: it paces an open loop, evenly (refuseByKind checks the rest).
func (s *Spec) validateIndependent(bad func(string, string, ...any)) {
	for i, l := range s.Loads {
		switch {
		case l.Rate == nil:
			bad(fmt.Sprintf("loads[%d]", i), "the independent generator paces an open loop: give a rate load, e.g. {rate: {rate: 2}}")
		case l.Rate.Arrivals == "poisson":
			bad(fmt.Sprintf("loads[%d].rate.arrivals", i), "the independent generator paces evenly, one request in flight: leave arrivals constant")
		}
	}
}

// validateRuntimes checks runtimes, and that the JVM's nodes have a
// topology they serve (refuseByKind names the rest they do not).
func (s *Spec) validateRuntimes(bad func(string, string, ...any)) {
	for i, rt := range s.Runtimes {
		if err := jvm.CheckRuntime(rt); err != nil {
			bad(fmt.Sprintf("runtimes[%d]", i), "%v", err)
		}
	}
	for i, top := range s.Topologies {
		if t, ok := s.topologies[top]; ok && s.onJVM() && !t.Linear() {
			bad(fmt.Sprintf("topologies[%d]", i), "runtime jvm: the JVM node calls one downstream node (direct and chain:N); %s fans out, which needs the Go node"+jvmApart, top)
		}
	}
}

// validateSchemas checks schemas: known versions, each path as long as
// every topology's nodes and a sender (refuseByKind names what does not
// serve v2).
func (s *Spec) validateSchemas(bad func(string, string, ...any)) {
	for i, sc := range s.Schemas {
		at := fmt.Sprintf("schemas[%d]", i)
		p, err := evolution.ParseSchema(sc)
		if err != nil {
			bad(at, "%v", err)
			continue
		}
		if slices.Index(s.Schemas, sc) != i {
			bad(at, "%q is listed twice", sc)
		}
		for _, top := range s.Topologies {
			t, ok := s.topologies[top]
			if !ok || len(p) == 1 {
				continue
			}
			if !t.Linear() {
				bad(at, "the path %q gives each node of a chain its version; %s fans out: use a topology of direct or chain:N, or one version (v1 or v2) for every node", sc, top)
			} else if _, err := p.For(t.Nodes()); err != nil {
				bad(at, "%v: give topologies [%s], or a path of %d versions for %s", err, p.Chain(), t.Nodes()+1, top)
			}
		}
	}
}

// validateHosts checks hosts and placement (placement.Check), and the
// loads a run on hosts takes (refuseByKind names what else it does not).
func (s *Spec) validateHosts(bad func(string, string, ...any)) {
	placement.Check(s.Hosts, s.Placement, bad)
	for i, l := range s.Loads {
		if c := l.Config(); len(s.Hosts) > 0 && c.Kind != "closed" && c.Kind != "rate" {
			bad(fmt.Sprintf("loads[%d]", i), "a %s load runs from one process: runs on hosts take closed and rate loads", c.Kind)
		}
	}
}
