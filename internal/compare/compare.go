// Package compare puts two sets of results side by side: runs matched by
// their configuration, each figure's change with a 95% confidence interval
// of the median over repetitions and a Mann–Whitney U test, as benchstat
// does (golang.org/x/perf/benchmath); and writes results in Go benchmark
// format so benchstat itself can read them.
package compare

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"

	"github.com/hopbench/hopbench/internal/results"
)

// Metric is one figure compared.
type Metric struct {
	Name string // as a heading: "req/s", "p50 ms"
	// Key names it in --fail-on: rps, p50, ...
	Key string
	// HigherIsBetter says which way a change is an improvement.
	HigherIsBetter bool
	value          func(*results.Record) float64
	// applies says whether a run has the figure at all (nil: every run
	// does): a unary call has no first message, and shows no row of it.
	applies func(*results.Record) bool
}

// Applies says whether r has the metric's figure.
func (m Metric) Applies(r *results.Record) bool { return m.applies == nil || m.applies(r) }

// Metrics are the figures compare shows, in order. A feed's (feed:N)
// req/s, p50 and p99 run to its last message.
var Metrics = []Metric{
	{Name: "req/s", Key: "rps", HigherIsBetter: true, value: func(r *results.Record) float64 { return r.RPS }},
	{Name: "msg/s", Key: "msgs", HigherIsBetter: true, value: func(r *results.Record) float64 { return r.MessagesPerS }, applies: fed},
	{Name: "p50 ms", Key: "p50", value: func(r *results.Record) float64 { return float64(r.P50Us) / 1000 }},
	{Name: "p99 ms", Key: "p99", value: func(r *results.Record) float64 { return float64(r.P99Us) / 1000 }},
	{Name: "first p50 ms", Key: "first_p50", value: func(r *results.Record) float64 { return float64(r.FirstMessage.P50Us) / 1000 }, applies: fed},
	{Name: "client CPU µs/req", Key: "client_cpu", value: func(r *results.Record) float64 { return r.ClientCPUUsPerReq }},
}

// fed says whether r recorded a feed's figures: its time to the first
// message and its messages a second.
func fed(r *results.Record) bool { return r.FirstMessage != nil }

// dims are what a run's configuration is matched on.
var dims = []struct {
	name string
	of   func(*results.Record) string
}{
	{"stack", func(r *results.Record) string { return r.Stack }},
	{"topology", func(r *results.Record) string { return r.Topology }},
	{"op", func(r *results.Record) string { return r.Op }},
	{"payload", func(r *results.Record) string { return fmt.Sprintf("%s×%d", r.Model, r.Count) }},
	{"load", func(r *results.Record) string { return r.Load }},
	// Go's runtime is empty here, so results of before runtimes existed,
	// and Go's keys, read as they did; a Fixed runtime names it.
	{"runtime", func(r *results.Record) string { return r.Runtime }},
	// The runtime's word in a case's options is matched as the runtime.
	{"options", func(r *results.Record) string { return results.WithoutOption(r.Options, r.Runtime) }},
}

// Fixed is a dimension that has one value in each set and differs between
// them: what the comparison is of (rest in A against grpc in B, say). It
// is left out of matching.
type Fixed struct{ Dim, A, B string }

// Row is one matched configuration's figure in both sets.
type Row struct {
	Key    string
	Metric Metric
	A, B   benchmath.Summary
	Cmp    benchmath.Comparison
	// RunsA and RunsB are each set's figure, run by run.
	RunsA, RunsB []float64
	// Significant is true when the test rejects "same distribution" at the
	// comparison's alpha.
	Significant bool
}

// Delta is B's centre relative to A's: +0.10 is 10% more.
func (r Row) Delta() float64 {
	if r.A.Center == 0 {
		return 0
	}
	return r.B.Center/r.A.Center - 1
}

// Result is a comparison of two sets.
type Result struct {
	Alpha        float64
	Fixed        []Fixed
	Rows         []Row // by metric, then in A's order
	OnlyA, OnlyB []string
	// LeftOutA and LeftOutB are the runs of each set that measured to
	// their end but whose figures a flag withholds (Standing).
	LeftOutA, LeftOutB []string
	// FallenB are B's runs whose figures do not stand, for any reason
	// (failed, interrupted, withheld): the worst regression, which the
	// gate fails on.
	FallenB []string
}

// Compare matches a's and b's completed runs by configuration and compares
// every metric; alpha is the significance level (benchstat's 0.05 when 0).
func Compare(a, b []results.Record, alpha float64) *Result {
	if alpha <= 0 {
		alpha = benchmath.DefaultThresholds.CompareAlpha
	}
	res := &Result{Alpha: alpha}
	res.FallenB = fallen(b)
	a, res.LeftOutA = Standing(a)
	b, res.LeftOutB = Standing(b)
	keep := make([]bool, len(dims))
	for i, d := range dims {
		va, vb := values(a, d.of), values(b, d.of)
		if len(va) == 1 && len(vb) == 1 && va[0] != vb[0] {
			f := Fixed{Dim: d.name, A: va[0], B: vb[0]}
			if d.name == "runtime" {
				f.A, f.B = cmp.Or(f.A, "go"), cmp.Or(f.B, "go")
			}
			res.Fixed = append(res.Fixed, f)
			continue
		}
		keep[i] = true
	}
	key := func(r *results.Record) string {
		var parts []string
		for i, d := range dims {
			if v := d.of(r); keep[i] && v != "" {
				parts = append(parts, v)
			}
		}
		return strings.Join(parts, " ")
	}
	keysA, byA := group(a, key)
	keysB, byB := group(b, key)
	thresholds := &benchmath.Thresholds{CompareAlpha: alpha}
	for _, m := range Metrics {
		for _, k := range keysA {
			ra, rb := applying(byA[k], m), applying(byB[k], m)
			if len(ra) == 0 || len(rb) == 0 {
				continue
			}
			va, vb := figures(ra, m), figures(rb, m)
			sa, sb := benchmath.NewSample(slices.Clone(va), thresholds), benchmath.NewSample(slices.Clone(vb), thresholds)
			cmp := benchmath.AssumeNothing.Compare(sa, sb)
			res.Rows = append(res.Rows, Row{
				Key: k, Metric: m, Cmp: cmp, Significant: cmp.P <= cmp.Alpha, RunsA: va, RunsB: vb,
				A: benchmath.AssumeNothing.Summary(sa, 0.95), B: benchmath.AssumeNothing.Summary(sb, 0.95),
			})
		}
	}
	for _, k := range keysA {
		if byB[k] == nil {
			res.OnlyA = append(res.OnlyA, k)
		}
	}
	for _, k := range keysB {
		if byA[k] == nil {
			res.OnlyB = append(res.OnlyB, k)
		}
	}
	return res
}

// Standing keeps the runs whose figures stand (results.Record.Stands): a
// failed or interrupted run measured nothing to compare. leftOut names
// each run that measured to its end but that a flag withholds, and why.
func Standing(recs []results.Record) (kept []results.Record, leftOut []string) {
	for _, r := range recs {
		switch {
		case r.Stands():
			kept = append(kept, r)
		case r.Completed():
			leftOut = append(leftOut, fmt.Sprintf("%s, repetition %d: %s", r.Case, r.Repetition, r.Flags))
		}
	}
	return kept, leftOut
}

// fallen names each run whose figures do not stand, and its outcome.
func fallen(recs []results.Record) []string {
	var out []string
	for _, r := range recs {
		if !r.Stands() {
			why := r.Outcome
			if r.Completed() {
				why = r.Flags.String()
			}
			out = append(out, fmt.Sprintf("%s, repetition %d: %s", r.Case, r.Repetition, why))
		}
	}
	return out
}

func values(recs []results.Record, of func(*results.Record) string) []string {
	keys, _ := group(recs, of)
	return keys
}

func group(recs []results.Record, key func(*results.Record) string) ([]string, map[string][]*results.Record) {
	var keys []string
	by := map[string][]*results.Record{}
	for i := range recs {
		k := key(&recs[i])
		if by[k] == nil {
			keys = append(keys, k)
		}
		by[k] = append(by[k], &recs[i])
	}
	return keys, by
}

// applying keeps the runs that have m's figure.
func applying(recs []*results.Record, m Metric) []*results.Record {
	var out []*results.Record
	for _, r := range recs {
		if m.Applies(r) {
			out = append(out, r)
		}
	}
	return out
}

// figures are m's figure of each run, in the runs' order.
func figures(recs []*results.Record, m Metric) []float64 {
	vs := make([]float64, len(recs))
	for i, r := range recs {
		vs[i] = m.value(r)
	}
	return vs
}
