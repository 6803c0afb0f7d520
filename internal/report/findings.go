package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hopbench/hopbench/internal/reproduce"
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
}

// finding says which of pts is first of all on what, and where the last
// stands against it: "Lowest p99: grpc, 0.410 ms, first of the 8 stacks;
// the highest, kafka's, is ×12.30 of it (1, 1 runs)."
func finding(what string, higherBetter bool, pts []point, format func(float64) string) string {
	pts = slices.DeleteFunc(slices.Clone(pts), func(p point) bool { return math.IsNaN(p.v) || math.IsInf(p.v, 0) })
	if len(pts) == 0 {
		return ""
	}
	slices.SortStableFunc(pts, func(a, b point) int {
		if higherBetter {
			a, b = b, a
		}
		return cmp.Or(cmp.Compare(a.v, b.v), compareStacks(a.stack, b.stack))
	})
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
	w := fmt.Sprintf("×%.2f of it", a.v/b.v)
	if a.runs == nil || b.runs == nil {
		return w
	}
	if lo, hi := reproduce.RatioInterval(a.runs, b.runs); lo > 0 {
		w += fmt.Sprintf(" [%.2f–%.2f]", lo, hi)
	}
	return w + fmt.Sprintf(" (%d, %d runs)", len(a.runs), len(b.runs))
}

// medianOf is the point of a case for a figure read from each of its runs
// that ended ok: their median, and the runs.
func (b *builder) medianOf(c *measured, f func(*results.Record) float64) point {
	var vs []float64
	for _, r := range b.runs[c.Case] {
		vs = append(vs, f(r))
	}
	if len(vs) == 0 {
		return point{stack: c.Stack, v: math.NaN()}
	}
	return point{stack: c.Stack, v: results.SpreadOf(vs).Median, runs: vs}
}

func msWords(us float64) string   { return ms(us) + " ms" }
func rpsWords(v float64) string   { return num(v, 0) + " req/s" }
func usWords(v float64) string    { return num(v, 1) + " µs" }
func mibWords(b float64) string   { return mib(b) + " MiB" }
func bytesWords(v float64) string { return num(v, 0) + " B" }
