package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hopbench/hopbench/internal/results"
)

// A chart's finding is one line computed from its figures: which stack is
// first of all on the figure the chart is about, and how far the last is
// from it, with the interval and runs behind the ratio where the figure is
// a median of runs.
type point struct {
	stack string
	v     float64
	runs  []float64 // the runs' values v is the median of; nil when it is not one
	bound bool      // some run's figure was only a lower bound
	marks string    // the flags its runs carry, counted: "contaminated in 2 of 5 runs"
}

// finding says which of pts is first of all on what, and where the last
// stands against it: "Lowest p99: grpc, 0.410 ms, first of the 8 stacks;
// the highest, kafka's, is ×12.30 of it (1, 1 runs)."
func finding(what string, higherBetter bool, pts []point, format func(float64) string) string {
	pts = slices.DeleteFunc(slices.Clone(pts), func(p point) bool { return math.IsNaN(p.v) || math.IsInf(p.v, 0) })
	if len(pts) == 0 {
		return ""
	}
	bestFirst(pts, higherBetter)
	first, last := "lowest", "highest"
	if higherBetter {
		first, last = last, first
	}
	best, worst := pts[0], pts[len(pts)-1]
	if len(pts) == 1 {
		return fmt.Sprintf("Only %s has a figure here: %s %s.", best.stack, what, format(best.v))
	}
	if worst.v == best.v {
		return fmt.Sprintf("All %d stacks have the same %s, %s.", len(pts), what, format(best.v))
	}
	s := fmt.Sprintf("%s %s: %s, %s, first of the %d stacks; the %s, %s's, ", strings.ToUpper(first[:1])+first[1:], what, best.stack, format(best.v), len(pts), last, worst.stack)
	if best.v == 0 {
		return s + "is " + format(worst.v) + "."
	}
	return s + "is " + ratioWords(worst, best) + "."
}

// at puts a finding in its place: "At text×100, lowest p50: …".
func at(where, finding string) string {
	if finding == "" {
		return ""
	}
	return "At " + where + ", " + strings.ToLower(finding[:1]) + finding[1:]
}

// ratioWords is a's figure against b's: "×1.42 of it [1.30–1.61] (3, 3
// runs)", the interval where both sides have two runs or more.
func ratioWords(a, b point) string {
	c := compare(a, b, false)
	if a.runs == nil || b.runs == nil {
		return c.factor + " of it"
	}
	return strings.TrimSpace(c.factor+" of it "+c.interval) + " (" + c.runs + ")"
}

// runsPoint is the median of a side's runs, with them.
func runsPoint(vs []float64) point { return point{v: results.SpreadOf(vs).Median, runs: vs} }

// pointOf is a case's figure f: the median over its runs that stand
// and gave one, with them; false when none did.
func pointOf(c *measured, runs map[string][]*results.Record, f figure) (point, bool) {
	vs, bound := f.Values(runs[c.Case])
	if len(vs) == 0 {
		return point{stack: c.Stack}, false
	}
	p := runsPoint(vs)
	p.stack, p.bound, p.marks = c.Stack, bound, marksOf(runs[c.Case])
	return p, true
}

// marksOf counts the flags runs carry: "contaminated in 2 of 5 runs";
// empty for none.
func marksOf(runs []*results.Record) string {
	n := map[results.Flag]int{}
	var order []results.Flag
	for _, r := range runs {
		for _, m := range r.Flags {
			if n[m.Flag] == 0 {
				order = append(order, m.Flag)
			}
			n[m.Flag]++
		}
	}
	parts := make([]string, len(order))
	for i, f := range order {
		parts[i] = fmt.Sprintf("%s in %d of %d runs", f, n[f], len(runs))
	}
	return strings.Join(parts, "; ")
}

// pointsOf are the cases' figures f, leaving out a case none of whose runs
// gave one.
func (b *builder) pointsOf(cases []*measured, f figure) []point {
	var out []point
	for _, c := range cases {
		if p, ok := pointOf(c, b.runs, f); ok {
			out = append(out, p)
		}
	}
	return out
}

// timesWords is a ratio as findings write it.
func timesWords(v float64) string { return "×" + num(v, 2) }

func msWords(us float64) string   { return ms(us) + " ms" }
func rpsWords(v float64) string   { return num(v, 0) + " req/s" }
func usWords(v float64) string    { return num(v, 1) + " µs" }
func mibWords(b float64) string   { return mib(b) + " MiB" }
func bytesWords(v float64) string { return num(v, 0) + " B" }
