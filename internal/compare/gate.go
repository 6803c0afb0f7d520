package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hopbench/hopbench/internal/check"
	"github.com/hopbench/hopbench/internal/stats"
)

// Tolerance is one entry of a regression gate (--fail-on): a metric and
// the change from A to B past which B fails: +10 % fails a rise of more
// than 10 %, −5 % a fall of more than 5 %.
type Tolerance struct {
	Key    string
	Change float64 // a fraction, signed: +0.10, -0.05
	Text   string  // as written: "p99:+10%"
}

// ParseFailOn reads a gate: tolerances separated by commas, each a
// metric key, a colon and a signed change in %, "p99:+10%,rps:-5%". A
// problem names its column in s.
func ParseFailOn(s string) ([]Tolerance, error) {
	var tols []Tolerance
	at := 0
	for _, item := range strings.Split(s, ",") {
		t, col, err := parseTolerance(item)
		if err != nil {
			return nil, fmt.Errorf("--fail-on %q: column %d: %w", s, at+col+1, err)
		}
		if slices.ContainsFunc(tols, func(o Tolerance) bool { return o.Key == t.Key }) {
			return nil, fmt.Errorf("--fail-on %q: column %d: %s is given twice", s, at+1, t.Key)
		}
		tols = append(tols, t)
		at += len(item) + 1
	}
	return tols, nil
}

// parseTolerance reads one "key:+N%"; on a problem, the column (from 0)
// in item where it is.
func parseTolerance(item string) (Tolerance, int, error) {
	key, change, ok := strings.Cut(item, ":")
	key = strings.TrimSpace(key)
	if i := slices.IndexFunc(Metrics, func(m Metric) bool { return m.Key == key }); i < 0 {
		return Tolerance{}, 0, fmt.Errorf("%q is not a metric compare gates (known: %s)", key, strings.Join(metricKeys(), ", "))
	}
	if !ok {
		return Tolerance{}, len(item), fmt.Errorf("want a colon and a signed change after %s, e.g. %s:+10%%", key, key)
	}
	col := len(item) - len(change)
	text := strings.TrimSpace(change)
	num, pct := strings.CutSuffix(text, "%")
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || !pct || (num[0] != '+' && num[0] != '-') || v == 0 {
		return Tolerance{}, col, fmt.Errorf("%q: want a signed change in %%, such as +10%% (fails a rise past 10%%) or -5%% (a fall past 5%%)", text)
	}
	return Tolerance{Key: key, Change: v / 100, Text: strings.TrimSpace(item)}, 0, nil
}

func metricKeys() []string {
	var keys []string
	for _, m := range Metrics {
		keys = append(keys, m.Key)
	}
	return keys
}

// Gate holds every row of the comparison to the tolerances: a change
// that is significant (the Mann–Whitney U test of the table, at its
// alpha) and past its tolerance fails; a significant change within it,
// or no significant change, passes; too few runs to test (fewer than
// stats.MinRuns a side) is undecided. A tolerance on a metric no
// configuration measured in both sets is an error, unless B's runs fell
// (below). A run of B whose
// figures do not stand (its calls failed, it was interrupted, a flag
// withholds them), and a configuration of A that B has no standing run
// of, each fails a check of its own: no tolerance can pass what B did
// not measure.
func (r *Result) Gate(tols []Tolerance) ([]check.Check, error) {
	var checks []check.Check
	for _, f := range r.FallenB {
		checks = append(checks, check.Check{Name: "B's runs stand", Kind: "gate", Subject: f, Outcome: check.Fail,
			Why: "B's run has no figure to compare: " + f})
	}
	for _, k := range r.OnlyA {
		checks = append(checks, check.Check{Name: "B measured A's configurations", Kind: "gate", Subject: k, Outcome: check.Fail,
			Why: "A measured this configuration and B has no run of it whose figures stand"})
	}
	for _, t := range tols {
		n := len(checks)
		for _, row := range r.Rows {
			if row.Metric.Key == t.Key {
				checks = append(checks, row.gate(t))
			}
		}
		if len(checks) == n && len(r.FallenB)+len(r.OnlyA) == 0 {
			return nil, fmt.Errorf("--fail-on %s: no configuration measured in both sets has %s", t.Text, t.Key)
		}
	}
	return checks, nil
}

// gate judges one row against a tolerance: its figure is the change in
// %, its interval the bootstrap interval of the ratio of the medians.
func (row Row) gate(t Tolerance) check.Check {
	c := check.Check{Name: t.Text, Kind: "gate", Subject: row.Key, Unit: check.Percent, Limit: fmt.Sprintf("%+g%%", 100*t.Change),
		Runs: min(row.Cmp.N1, row.Cmp.N2), Measured: row.A.Center != 0, Figure: 100 * row.Delta()}
	c.Low, c.High = c.Figure, c.Figure // one run a side: the one ratio there is
	if len(row.RunsA) >= 2 && len(row.RunsB) >= 2 {
		lo, hi := stats.Bootstrap([][]float64{row.RunsB, row.RunsA}, func(m []float64) float64 { return m[0] / m[1] })
		if !math.IsInf(hi, 0) && !math.IsNaN(lo) {
			c.Low, c.High = 100*(lo-1), 100*(hi-1)
		}
	}
	medians := fmt.Sprintf("%s: A %s, B %s", row.Metric.Name, figure(row.A.Center), figure(row.B.Center))
	past := row.Delta() > t.Change
	if t.Change < 0 {
		past = row.Delta() < t.Change
	}
	switch {
	case !c.Measured:
		c.Outcome, c.Why = check.Undecided, medians+": A's median is 0, so no change can be stated"
	case row.Cmp.N1 < stats.MinRuns || row.Cmp.N2 < stats.MinRuns:
		c.Outcome, c.Why = check.Undecided, fmt.Sprintf("%s; %d and %d runs: %d or more a side can show a significant change", medians, row.Cmp.N1, row.Cmp.N2, stats.MinRuns)
	case !row.Significant:
		c.Outcome, c.Why = check.Pass, fmt.Sprintf("%s; no significant change (Mann–Whitney U, %s, α=%g)", medians, row.Cmp, row.Cmp.Alpha)
	case past:
		c.Outcome, c.Why = check.Fail, fmt.Sprintf("%s; a significant change (Mann–Whitney U, %s) past %s", medians, row.Cmp, c.Limit)
	default:
		c.Outcome, c.Why = check.Pass, fmt.Sprintf("%s; a significant change (Mann–Whitney U, %s) within %s", medians, row.Cmp, c.Limit)
	}
	return c
}
