package experiment

import (
	"fmt"

	"github.com/hopbench/hopbench/internal/oneway"
)

// The modes a spec's runs measure in.
const (
	ModeRequest = "request"
	ModeOneWay  = "oneway"
)

// validateOneWay checks a one-way spec: its consumers, a body to publish,
// closed or rate loads (refuseByKind names the stacks, topologies and
// settings one-way runs do not take).
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
			if err := oneway.CheckEncode(e); err != nil {
				bad("oneway.encode", "%v", err)
			}
		}
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
}
