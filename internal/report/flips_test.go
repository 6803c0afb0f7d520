package report

import (
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/results"
)

// withCPU gives each of recs one service spending cpu µs a request.
func withCPU(recs []results.Record, cpu float64) []results.Record {
	for i := range recs {
		recs[i].Nodes = []results.Node{{Usage: results.Usage{CPUUsPerReq: cpu}}}
	}
	return recs
}

// grpc leads rest at one client and trails it at 32, significantly in
// both: the verdict says so, with the CPU a request that explains it, or
// that nothing measured does; a pair whose order holds at both loads, or
// differs in one only by noise, is not a flip.
func TestAnOrderThatFlipsWithTheLoadIsSaid(t *testing.T) {
	five := func(v float64) []float64 { return []float64{v, v * 1.01, v * 0.99, v * 1.02, v * 0.98} }
	p50s := func(v int64) []int64 { return []int64{v, v + 1, v - 1, v + 2, v - 2} }
	build := func(grpcCPU, restCPU float64) Verdict {
		var recs []results.Record
		recs = append(recs, withCPU(runsOf("grpc", "closed:1", results.OutcomeOK, p50s(100), five(1)), grpcCPU)...)
		recs = append(recs, withCPU(runsOf("rest", "closed:1", results.OutcomeOK, p50s(150), five(1)), restCPU)...)
		recs = append(recs, withCPU(runsOf("graphql", "closed:1", results.OutcomeOK, p50s(300), five(1)), 90)...)
		recs = append(recs, withCPU(runsOf("grpc", "closed:32", results.OutcomeOK, p50s(900), five(20000)), grpcCPU)...)
		recs = append(recs, withCPU(runsOf("rest", "closed:32", results.OutcomeOK, p50s(800), five(25000)), restCPU)...)
		recs = append(recs, withCPU(runsOf("graphql", "closed:32", results.OutcomeOK, p50s(2000), five(5000)), 90)...)
		r, err := Build("flips", nil, recs)
		if err != nil {
			t.Fatal(err)
		}
		return r.Verdict
	}
	v := build(50, 40)
	if len(v.Flips) != 1 {
		t.Fatalf("flips %+v, want grpc against rest only", v.Flips)
	}
	f := v.Flips[0].Text
	for _, w := range []string{"grpc leads rest at 1 client", "trails it at 32 clients", "explained: rest spends less CPU a request"} {
		if !strings.Contains(f, w) {
			t.Errorf("flip %q, want it to say %q", f, w)
		}
	}
	if !v.Flips[0].Explained || v.Flips[0].Model != "text" || v.Flips[0].Count != 10 {
		t.Errorf("flip %+v, want it explained, of text×10", v.Flips[0])
	}
	if lines := strings.Join(v.Lines(), "\n"); !strings.Contains(lines, "Order flips with the load") {
		t.Errorf("verdict lines %q, want the flip among them", lines)
	}
	if f := build(40, 50).Flips; len(f) != 1 || f[0].Explained || !strings.Contains(f[0].Text, "unexplained") || !strings.Contains(f[0].Text, "unsettled") {
		t.Errorf("flip where the leader spends more CPU: %+v, want it unexplained and unsettled", f)
	}
}
