package expdoc

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"

	"github.com/hopbench/hopbench/internal/reproduce"
	"github.com/hopbench/hopbench/internal/results"
)

// Comparison is one measure of two sets of runs set against each other as
// the verdicts do it: the ratio of their medians, its 95 % bootstrap
// interval over the runs (reproduce.RatioInterval), and the Mann–Whitney U
// test's p-value.
type Comparison struct {
	// Case, Stack, Op and Topology are the numerator's, when its runs are
	// of one case.
	Case, Stack, Op, Topology string
	Num, Den                  float64 // the two medians
	// NumRuns and DenRuns are the runs' figures the medians are of.
	NumRuns, DenRuns []float64
	Ratio            float64
	// Low and High bound Ratio; both zero when a side has one run.
	Low, High float64
	// P is the test's p-value; Tested is false, and P NaN, when a side
	// has fewer runs than reproduce.MinRuns.
	P      float64
	Tested bool
}

// Differs says whether the test found the two sides different at the
// verdicts' significance level.
func (c Comparison) Differs() bool { return c.Tested && c.P <= reproduce.Alpha }

// Spans1 says whether the interval holds ×1 (no interval holds it).
func (c Comparison) Spans1() bool { return c.Low <= 1 && c.High >= 1 }

// HasInterval says whether both sides had the runs for an interval.
func (c Comparison) HasInterval() bool { return c.Low != 0 || c.High != 0 }

// Runs is the fewer of the two sides' runs.
func (c Comparison) Runs() int { return min(len(c.NumRuns), len(c.DenRuns)) }

func compareRuns(num, den []float64) Comparison {
	n, m := results.SpreadOf(num).Median, results.SpreadOf(den).Median
	c := Comparison{Num: n, Den: m, NumRuns: num, DenRuns: den, Ratio: n / m, P: math.NaN()}
	c.Low, c.High = reproduce.RatioInterval(num, den)
	if len(num) >= reproduce.MinRuns && len(den) >= reproduce.MinRuns {
		th := &benchmath.Thresholds{CompareAlpha: reproduce.Alpha}
		r := benchmath.AssumeNothing.Compare(benchmath.NewSample(slices.Clone(num), th), benchmath.NewSample(slices.Clone(den), th))
		c.P, c.Tested = r.P, true
	}
	return c
}

// compare sets measure of the runs num picks against those den picks.
func (d *Doc) compare(name, measure string, num, den []string) (Comparison, error) {
	a, err := d.figures(name, measure, num)
	if err != nil {
		return Comparison{}, err
	}
	b, err := d.figures(name, measure, den)
	if err != nil {
		return Comparison{}, err
	}
	c := compareRuns(a, b)
	recs, err := d.records(name, num)
	if cs := casesOf(recs); err == nil && len(cs) == 1 {
		c.Case, c.Stack, c.Op, c.Topology = cs[0], recs[0].Stack, recs[0].Op, recs[0].Topology
	}
	return c, err
}

// Comparisons are several, each a case against its twin.
type Comparisons []Comparison

// Least is the comparison of the smallest ratio; Most of the largest.
func (cs Comparisons) Least() Comparison {
	return slices.MinFunc(cs, func(a, b Comparison) int { return cmpFloat(a.Ratio, b.Ratio) })
}

// Most is the comparison of the largest ratio.
func (cs Comparisons) Most() Comparison {
	return slices.MaxFunc(cs, func(a, b Comparison) int { return cmpFloat(a.Ratio, b.Ratio) })
}

// Apart are the comparisons whose interval leaves out ×1.
func (cs Comparisons) Apart() Comparisons {
	var out Comparisons
	for _, c := range cs {
		if c.HasInterval() && !c.Spans1() {
			out = append(out, c)
		}
	}
	return out
}

// Above1 counts the comparisons whose whole interval lies above ×1.
func (cs Comparisons) Above1() int {
	n := 0
	for _, c := range cs {
		if c.HasInterval() && c.Low > 1 {
			n++
		}
	}
	return n
}

// Below1 counts the comparisons whose ratio is below ×1.
func (cs Comparisons) Below1() int {
	n := 0
	for _, c := range cs {
		if c.Ratio < 1 {
			n++
		}
	}
	return n
}

// Diffs is the median, least and most of the comparisons' differences,
// numerator's median less the denominator's.
func (cs Comparisons) Diffs() results.Spread {
	ds := make([]float64, len(cs))
	for i, c := range cs {
		ds[i] = c.Num - c.Den
	}
	return results.SpreadOf(ds)
}

// Ratios is the median, least and most of the comparisons' ratios.
func (cs Comparisons) Ratios() results.Spread {
	rs := make([]float64, len(cs))
	for i, c := range cs {
		rs[i] = c.Ratio
	}
	return results.SpreadOf(rs)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// twins sets each case of the runs where picks whose case names the word
// numWord against its twin, the same case with denWord in its place (or
// without it, denWord empty): "jvm" against "" is each JVM case against
// its Go twin. The order is the cases', as first recorded.
func (d *Doc) twins(name, measure, numWord, denWord string, where ...string) (Comparisons, error) {
	recs, err := d.records(name, where)
	if err != nil {
		return nil, err
	}
	var cs Comparisons
	for _, c := range casesOf(recs) {
		twin, ok := swapWord(c, numWord, denWord)
		if !ok {
			continue
		}
		cmp, err := d.compare(name, measure, []string{"case=" + c}, []string{"case=" + twin})
		if err != nil {
			return nil, fmt.Errorf("%s against %s: %w", c, twin, err)
		}
		cs = append(cs, cmp)
	}
	if len(cs) == 0 {
		return nil, fmt.Errorf("%s: no case with %s names %q", name, strings.Join(where, " "), numWord)
	}
	return cs, nil
}

// swapWord is the case with the word from replaced by to (dropped, to
// empty), and whether it had the word.
func swapWord(c, from, to string) (string, bool) {
	words := strings.Fields(c)
	i := slices.Index(words, from)
	if i < 0 {
		return "", false
	}
	if to == "" {
		words = slices.Delete(words, i, i+1)
	} else {
		words[i] = to
	}
	return strings.Join(words, " "), true
}
