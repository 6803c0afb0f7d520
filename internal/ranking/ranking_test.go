package ranking

import (
	"testing"

	"github.com/hopbench/hopbench/internal/results"
)

func TestDecided(t *testing.T) {
	for _, c := range []struct {
		a, b []float64
		want string
	}{
		{[]float64{100, 101, 99, 100}, []float64{100, 100, 101, 99}, "tied"},
		{[]float64{100, 105, 110, 102}, []float64{200, 210, 205, 220}, "separated"},
		{[]float64{100, 120, 90, 110}, []float64{102, 125, 88, 111}, ""},
		{[]float64{100}, []float64{200, 210}, ""},
	} {
		if got := Decided(c.a, c.b, 0.05); got != c.want {
			t.Errorf("Decided(%v, %v) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
}

// A scenario is open while some neighbouring pair is neither separated
// nor tied; a ramp ranks nothing.
func TestUndecided(t *testing.T) {
	var recs []results.Record
	add := func(stack, load string, count int, p50s ...int64) {
		for _, p := range p50s {
			r := results.Record{Case: stack + " " + load, Stack: stack, Topology: "direct", Op: "echo", Model: "text",
				Count: count, Load: load, Outcome: results.OutcomeOK}
			r.Requests, r.P50Us = 100, p
			recs = append(recs, r)
		}
	}
	add("rest", "closed:1", 10, 100, 105, 110, 102)
	add("grpc", "closed:1", 10, 200, 210, 205, 220)
	add("rest", "rate:100", 10, 100, 120, 90, 110)
	add("grpc", "rate:100", 10, 102, 125, 88, 111)
	add("rest", "ramp:clients:1-10/1/1s", 10, 100, 500)
	add("grpc", "ramp:clients:1-10/1/1s", 10, 101, 900)
	open := Undecided(recs, 0.05)
	if len(open) != 1 || open[0].Scenario != "direct · echo · text×10 · rate:100" || open[0].Pair != [2]string{"rest", "grpc"} ||
		len(open[0].Cases) != 2 {
		t.Errorf("open %+v: want the rate scenario alone, rest and grpc", open)
	}
}

func TestCompareStacksIsLegendOrder(t *testing.T) {
	for _, c := range [][2]string{{"rest", "grpc"}, {"rest", "rest+proto"}, {"rest+proto", "rest+proto+gzip"}, {"mqtt", "zzz"}} {
		if CompareStacks(c[0], c[1]) >= 0 || CompareStacks(c[1], c[0]) <= 0 {
			t.Errorf("%s should come before %s", c[0], c[1])
		}
	}
}
