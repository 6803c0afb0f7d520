package ranking

import (
	"strings"

	"github.com/hopbench/hopbench/internal/results"
)

// Figure is a number read from each run whose figures stand.
type Figure struct {
	Name         string
	HigherBetter bool
	Of           func(*results.Record) (float64, bool)
	// Bound says a run's figure is only a lower bound.
	Bound func(*results.Record) bool
}

// The figures a scenario's stacks are ranked by (Headline).
var (
	P50        = Figure{Name: "p50", Of: func(r *results.Record) (float64, bool) { return float64(r.P50Us), r.Requests > 0 }}
	Throughput = Figure{Name: "throughput", HigherBetter: true, Of: func(r *results.Record) (float64, bool) { return r.RPS, r.Requests > 0 }}
	Capacity   = Figure{Name: "capacity at the SLA", HigherBetter: true,
		Of: func(r *results.Record) (float64, bool) {
			return r.CapacityRPS, r.Capacity != nil && r.Capacity.Step >= 0 && r.CapacityRPS > 0
		},
		Bound: func(r *results.Record) bool { return r.Capacity != nil && r.Capacity.LowerBound }}
)

// Values are f of runs, and whether any was only a lower bound.
func (f Figure) Values(runs []*results.Record) (vs []float64, bound bool) {
	for _, r := range runs {
		if v, ok := f.Of(r); ok {
			vs = append(vs, v)
			bound = bound || (f.Bound != nil && f.Bound(r))
		}
	}
	return vs, bound
}

// Headline is the figure a scenario's stacks are ranked by: p50 with one
// client or at a fixed rate, throughput with more clients, capacity for
// a capacity search. A ramp has none: it is read as a curve.
func Headline(load string) (Figure, bool) {
	switch kind, first := LoadKind(load); kind {
	case "capacity":
		return Capacity, true
	case "rate":
		return P50, true
	case "closed":
		if first == "1" {
			return P50, true
		}
		return Throughput, true
	}
	return Figure{}, false
}

// LoadKind reads a load as load.Config's String writes it: its kind
// (closed, rate, ramp, capacity) and the word after, up to a "/": the
// clients, the rate, or the SLA.
func LoadKind(load string) (kind, first string) {
	kind, rest, _ := strings.Cut(load, ":")
	return kind, strings.SplitN(rest, "/", 2)[0]
}
