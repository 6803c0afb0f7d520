package threshold

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hopbench/hopbench/internal/check"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
)

// Judge holds each case of recs to the limits of every rule that selects
// it, rule by rule, limit by limit, case by case in the order the cases
// first appear. A limit on a capacity applies to capacity searches only.
func Judge(rules Rules, recs []results.Record) []check.Check {
	var cases []string
	byCase := map[string][]*results.Record{}
	for i := range recs {
		r := &recs[i]
		if byCase[r.Case] == nil {
			cases = append(cases, r.Case)
		}
		byCase[r.Case] = append(byCase[r.Case], r)
	}
	var checks []check.Check
	for _, rule := range rules {
		for _, l := range rule.Limits {
			k, _ := lookup(l.Key)
			for _, c := range cases {
				first := byCase[c][0]
				searched := strings.HasPrefix(first.Load, "capacity:")
				if !rule.Selects(first.Stack, first.Topology) || k.needs != nil && k.needs(Subject{Capacity: searched, Nodes: true}) != "" {
					continue
				}
				checks = append(checks, judge(l, k, c, byCase[c]))
			}
		}
	}
	return checks
}

// judge holds one case's runs to a limit: the median of their figures
// and its interval, placed against the limit. A run with no figure (its
// calls failed, it did not complete, a flag withholds its figures) fails
// the check: a figure not measured never meets a limit.
func judge(l Limit, k key, subject string, runs []*results.Record) check.Check {
	c := check.Check{Name: l.String(), Kind: "threshold", Subject: subject, Unit: k.unit, Limit: l.Text, Runs: len(runs)}
	var vals []float64
	var missing []string
	for _, r := range runs {
		v, why := k.of(r)
		if why != "" {
			missing = append(missing, fmt.Sprintf("repetition %d: %s", r.Repetition, why))
			continue
		}
		vals = append(vals, v)
	}
	if len(missing) > 0 {
		c.Outcome = check.Fail
		c.Why = fmt.Sprintf("%d of %d runs have no %s figure, so the limit cannot be shown met: %s", len(missing), len(runs), l.Key, strings.Join(missing, "; "))
		return c
	}
	c.Measured, c.Figure = true, stats.Median(vals)
	c.Low, c.High = slices.Min(vals), slices.Max(vals)
	if len(vals) >= stats.MinRuns {
		c.Low, c.High = stats.MedianInterval(vals)
	}
	c.Outcome, c.Why = place(l, c.Low, c.High, len(vals))
	return c
}

// place judges an interval against a limit: within it wholly passes,
// past it wholly fails, across it is undecided. With fewer than
// stats.MinRuns runs the interval is the runs' range: every run must lie
// on one side.
func place(l Limit, lo, hi float64, runs int) (check.Outcome, string) {
	of := fmt.Sprintf("the 95%% interval of the median of %d runs", runs)
	if runs < stats.MinRuns {
		of = fmt.Sprintf("every one of the %d runs (fewer than %d: judged on their range, not an interval)", runs, stats.MinRuns)
		if runs == 1 {
			of = "the one run"
		}
	}
	switch inLo, inHi := l.met(lo), l.met(hi); {
	case inLo && inHi:
		return check.Pass, of + " is within the limit"
	case !inLo && !inHi:
		return check.Fail, of + " is past the limit"
	}
	if runs < stats.MinRuns {
		return check.Undecided, fmt.Sprintf("the runs lie on both sides of the limit: %d or more would judge it on the interval of their median", stats.MinRuns)
	}
	return check.Undecided, of + " holds the limit: more runs would narrow it"
}
