// Package ranking decides whether a scenario's ranking of stacks is
// settled: the figure that ranks its stacks, and whether each pair of
// neighbours is separated (Mann–Whitney U) or tied (within TieMargin).
// Reports state it; an experiment repeats the cases it leaves open.
package ranking

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/reproduce"
	"github.com/hopbench/hopbench/internal/results"
)

// TieMargin is how close two stacks' medians must be, the whole interval
// of their ratio within ×1/1.05 to ×1.05, to count as tied: a pair that
// more runs would not separate.
const TieMargin = 0.05

// Decided says how a pair of neighbours, their runs' figures, is decided
// at alpha ("separated", "tied"), or "" when it is not.
func Decided(a, b []float64, alpha float64) string {
	if len(a) < 2 || len(b) < 2 {
		return ""
	}
	if lo, hi := reproduce.RatioInterval(a, b); lo >= 1/(1+TieMargin) && hi <= 1+TieMargin {
		return "tied"
	}
	th := &benchmath.Thresholds{CompareAlpha: alpha}
	c := benchmath.AssumeNothing.Compare(benchmath.NewSample(slices.Clone(a), th), benchmath.NewSample(slices.Clone(b), th))
	if c.P <= alpha {
		return "separated"
	}
	return ""
}

// Open is a scenario whose ranking is not decided: a pair of neighbouring
// stacks neither separated nor tied.
type Open struct {
	Scenario string
	Pair     [2]string
	Cases    []string // the records' cases of the scenario, every stack
}

// Undecided are the scenarios of recs whose rankings are not decided at
// alpha: some neighbouring pair of stacks in the ranking by the
// scenario's Headline figure neither differs significantly nor is tied.
// Stacks with no figure do not hold a ranking open; ramps, which rank
// nothing, are left out.
func Undecided(recs []results.Record, alpha float64) []Open {
	runs := PerCase(recs)
	var keys []string
	by := map[string][]results.Row{}
	for _, row := range results.Summarize(recs) {
		k := Scenario(row)
		if _, ok := by[k]; !ok {
			keys = append(keys, k)
		}
		by[k] = append(by[k], row)
	}
	var open []Open
	for _, k := range keys {
		f, ok := Headline(by[k][0].Load)
		if !ok {
			continue
		}
		if pair, ok := openPair(by[k], runs, f, alpha); ok {
			o := Open{Scenario: k, Pair: pair}
			for _, row := range by[k] {
				o.Cases = append(o.Cases, row.Case)
			}
			open = append(open, o)
		}
	}
	return open
}

// openPair is the first pair of neighbours, best first, that is not
// decided among rows ranked by f.
func openPair(rows []results.Row, runs map[string][]*results.Record, f Figure, alpha float64) ([2]string, bool) {
	type stack struct {
		name   string
		median float64
		runs   []float64
	}
	var ranked []stack
	for _, row := range rows {
		if vs, _ := f.Values(runs[row.Case]); len(vs) > 0 {
			ranked = append(ranked, stack{row.Stack, results.SpreadOf(vs).Median, vs})
		}
	}
	slices.SortStableFunc(ranked, func(a, b stack) int {
		if f.HigherBetter {
			a, b = b, a
		}
		return cmp.Or(cmp.Compare(a.median, b.median), CompareStacks(a.name, b.name))
	})
	for i := 0; i+1 < len(ranked); i++ {
		if Decided(ranked[i].runs, ranked[i+1].runs, alpha) == "" {
			return [2]string{ranked[i].name, ranked[i+1].name}, true
		}
	}
	return [2]string{}, false
}

// Scenario names everything about a case but its stack: the cases whose
// stacks are ranked against each other.
func Scenario(row results.Row) string {
	var parts []string
	for _, p := range []string{row.Topology, row.Op, fmt.Sprintf("%s×%d", row.Model, row.Count), row.Load, row.Options} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " · ")
}

// PerCase is each case's runs whose figures stand (results.Record.Stands).
// A run that partly failed gives no figure.
func PerCase(recs []results.Record) map[string][]*results.Record {
	out := map[string][]*results.Record{}
	for i := range recs {
		if r := &recs[i]; r.Stands() {
			out[r.Case] = append(out[r.Case], r)
		}
	}
	return out
}

// Technologies are the technologies in legend order: the order stacks
// whose figures tie are ranked in, and reports list them in.
var Technologies = []string{"rest", "grpc", "graphql", "amqp", "kafka", "nats", "redis",
	"connect", "grpcweb", "connect-grpc", "ws", "grpc-stream", "rest-h3", "mqtt"}

// CompareStacks orders stacks as a legend does: by technology
// (Technologies, unknown ones last), then codec and compression by their
// places in codec.Names() and codec.CompressionNames(), then by name.
func CompareStacks(a, b string) int {
	va, vb := VariantOf(a), VariantOf(b)
	return cmp.Or(cmp.Compare(va.Family, vb.Family), cmp.Compare(va.Tech, vb.Tech),
		cmp.Compare(va.Codec, vb.Codec), cmp.Compare(va.Compressed, vb.Compressed), cmp.Compare(a, b))
}

// Variant is a stack name read as places: its technology's in
// Technologies (len(Technologies) when unknown), its codec's in
// codec.Names() plus one (0: the technology's default, named by no word)
// and its compression's in codec.CompressionNames() (0: none).
type Variant struct {
	Family            int
	Tech              string
	Codec, Compressed int
}

// VariantOf reads stack as its Variant.
func VariantOf(stack string) Variant {
	parts := strings.Split(stack, "+")
	v := Variant{Family: len(Technologies), Tech: parts[0]}
	if i := slices.Index(Technologies, parts[0]); i >= 0 {
		v.Family = i
	}
	for _, p := range parts[1:] {
		if i := slices.Index(codec.Names(), p); i >= 0 {
			v.Codec = i + 1
		}
		if i := slices.Index(codec.CompressionNames(), p); i >= 0 {
			v.Compressed = i
		}
	}
	return v
}
