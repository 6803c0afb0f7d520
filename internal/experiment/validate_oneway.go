package experiment

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hopbench/hopbench/internal/transport"
)

// The modes a spec's runs measure in.
const (
	ModeRequest = "request"
	ModeOneWay  = "oneway"
)

// validateOneWay checks a one-way spec: broker stacks that carry one-way
// messages, direct, a body to publish, closed or rate loads, on this
// machine with hopbench's engine.
func (s *Spec) validateOneWay(bad func(string, string, ...any)) {
	switch s.Mode {
	case "", ModeRequest:
		if s.OneWay != nil {
			bad("oneway", "applies to mode oneway only: add mode: oneway, or leave it out")
		}
		return
	case ModeOneWay:
	default:
		bad("mode", "%q: want request (the default) or oneway", s.Mode)
		return
	}
	if s.OneWay != nil {
		if err := s.OneWay.Config().Check(); err != nil {
			bad("oneway", "%v", err)
		}
		if e := s.OneWay.Encode; e != "" { // none given: once
			if err := CheckEncode(e); err != nil {
				bad("oneway.encode", "%v", err)
			}
		}
	}
	for i, st := range s.Stacks {
		if p, err := transport.ParseStack(st); err == nil {
			if _, err := transport.MessengerOf(p.Transport); err != nil {
				bad(fmt.Sprintf("stacks[%d]", i), "%v", err)
			}
		}
	}
	if !slices.Contains([]string{"", "direct"}, strings.Join(s.Topologies, ",")) {
		bad("topologies", "a one-way message goes from publisher to consumers: topologies [direct]")
	}
	for i, op := range s.Ops {
		if op != "post" && op != "echo" {
			bad(fmt.Sprintf("ops[%d]", i), "%q: a one-way message carries a body: post (or echo, the same body)", op)
		}
	}
	for i, l := range s.Loads {
		if l.Ramp != nil {
			bad(fmt.Sprintf("loads[%d]", i), "one-way runs take closed, rate and capacity loads (ramps are for calls, for now)")
		}
	}
	s.refuseWithOneWay(bad)
}

// refuseWithOneWay refuses what one-way runs do not have: nodes (their
// runtimes, memory, schemas, placement) and the independent generator.
func (s *Spec) refuseWithOneWay(bad func(string, string, ...any)) {
	for _, c := range []struct {
		set  bool
		name string
	}{{len(s.Hosts) > 0, "hosts"}, {slices.Contains(s.Runtimes, "jvm"), "runtimes: jvm"}, {s.Memory > 0, "memory"},
		{len(s.Schemas) > 0, "schemas"}, {slices.Contains(s.Generators, GeneratorIndependent), "generators: independent"},
		{slices.ContainsFunc(s.Connections, func(c ConnMode) bool { return c.PerRequest }), "connections: per-request"}} {
		if c.set {
			bad("mode", "one-way runs do not take %s", c.name)
		}
	}
}
