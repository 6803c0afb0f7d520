package codectiming

import (
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/codecbench"
	"github.com/hopbench/hopbench/internal/specyaml"
)

// What a spec's jmh leaves out takes JMH's defaults for an experiment.
func TestJMHOptions(t *testing.T) {
	if o := (*JMH)(nil).Options(1); o.Forks != 5 || o.WarmupIterations != 3 || o.Iterations != 3 || o.Iteration != time.Second || o.Seed != 1 {
		t.Errorf("JMH's defaults: %+v", o)
	}
	forks, warmup, it := 2, 0, specyaml.Duration(200*time.Millisecond)
	if o := (&JMH{Forks: &forks, WarmupIterations: &warmup, IterationTime: &it}).Options(7); o.Forks != 2 || o.WarmupIterations != 0 ||
		o.Iterations != 3 || o.Iteration != 200*time.Millisecond || o.Seed != 7 {
		t.Errorf("JMH with forks 2, no warm-up, 200ms iterations: %+v", o)
	}
}

func TestNoCodecsNoTime(t *testing.T) {
	p := Plan{Payloads: []codecbench.Case{{Model: "text", Count: 10}}, JVM: true}
	if d := p.Estimate(); d != 0 {
		t.Errorf("no codecs estimated at %s", d)
	}
}
