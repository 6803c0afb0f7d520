package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/advise"
)

func TestAdviseMeasuresAnSLAAtARateWithACapacitySearch(t *testing.T) {
	req := advise.Requirements{Model: "text", Count: 100, Rate: 1000, SLA: 20 * time.Millisecond}
	req.Defaults()
	spec, _, err := adviseSpec(req)
	if err != nil {
		t.Fatal(err)
	}
	runs := spec.Runs()
	if len(runs) != 8 {
		t.Fatalf("%d runs, want one per stack of the quick preset", len(runs))
	}
	var total time.Duration
	for _, r := range runs {
		c := r.Load.Capacity
		if c == nil || c.Start != 1000 || time.Duration(c.SLA) != 20*time.Millisecond || c.Percentile != 99 {
			t.Fatalf("%s: load %+v, want a capacity search at p99 ≤ 20ms from 1000 req/s", r.Case(), r.Load)
		}
		total += time.Duration(r.Warmup + r.Duration)
	}
	if total > 5*time.Minute-30*time.Second {
		t.Errorf("8 searches take up to %v; advise --measure promises under 5 minutes with boots and brokers", total)
	}
	closed := advise.Requirements{Model: "text", Count: 100, Rate: 1000}
	closed.Defaults()
	_, data, err := adviseSpec(closed)
	if err != nil || !strings.Contains(string(data), "closed: {clients: 32}") {
		t.Errorf("a rate without an SLA measures throughput in a closed loop: %v\n%s", err, data)
	}
}
