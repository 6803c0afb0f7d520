package experiment

import (
	"slices"
	"time"

	"github.com/hopbench/hopbench/internal/codecbench"
	"github.com/hopbench/hopbench/internal/codectiming"
	"github.com/hopbench/hopbench/internal/jvm"
)

// onJVM says some of s's nodes, and its codecs, run on the JVM.
func (s *Spec) onJVM() bool { return slices.Contains(s.Runtimes, jvm.JVM) }

// codecPlan is how s's codecs are timed on runs' payloads.
func (s *Spec) codecPlan(runs []Run) codectiming.Plan {
	payloads := make([]codecbench.Case, len(runs))
	for i, r := range runs {
		payloads[i] = codecbench.Case{Model: r.Model, Count: r.Count}
	}
	return codectiming.Plan{Codecs: s.Codecs, Payloads: payloads, Seed: s.Seed, JVM: s.onJVM(), JMH: s.JMH}
}

// CodecEstimate is about how long timing s's codecs on runs' payloads
// takes, before the runs (codectiming.Plan.Estimate).
func (s *Spec) CodecEstimate(runs []Run) time.Duration { return s.codecPlan(runs).Estimate() }
