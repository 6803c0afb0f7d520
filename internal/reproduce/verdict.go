package reproduce

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchmath"

	"github.com/hopbench/hopbench/internal/stats"
	"github.com/hopbench/hopbench/reference"
)

// Verdict is what a row concludes; these six strings and no others.
type Verdict string

const (
	// Holds: the direction is significant (exact, for byte counts) and the
	// whole interval measured here lies inside the degree band around the
	// paper's ratio, or its range (DegreeBand; an exact measure's ratio
	// within Tolerance of it). A wide interval cannot hold: it straddles
	// the band. A parity claim holds when the interval sits inside the
	// equivalence band.
	Holds Verdict = "holds"
	// DirectionOnly: the direction is significant and the whole interval
	// lies outside the degree band: the effect here is stronger or weaker
	// (Row.Degree).
	DirectionOnly Verdict = "holds in direction only"
	// DegreeUndecided: the direction is significant, but the interval
	// straddles an edge of the degree band; Row.Why says how many runs a
	// side would decide it, from the spread seen here.
	DegreeUndecided Verdict = "degree undecided"
	// DoesNotHold: the opposite direction, significant (a ranking: another
	// stack significantly ahead; parity: the interval outside the band).
	DoesNotHold Verdict = "does not hold"
	// Inconclusive: no significant difference; Row.Why says what would
	// decide it.
	Inconclusive Verdict = "inconclusive"
	NotMeasured  Verdict = "not measured"
)

// Verdicts are the six, in the order tables count them.
var Verdicts = []Verdict{Holds, DirectionOnly, DegreeUndecided, DoesNotHold, Inconclusive, NotMeasured}

// Tolerance is how far an exact measure's ratio (bytes, sizes) may sit
// from the paper's and still hold in degree: 10 % either way. An exact
// measure has no spread to widen it.
const Tolerance = 0.10

// DegreeBand is how far a timing's ratio may sit from the paper's and
// still be the paper's effect, as a factor either way in log space: the
// interval must lie within ×0.8 to ×1.25 of the paper's ratio (of its
// range's ends). EXPERIMENTS.md says why this band.
const DegreeBand = 1.25

// MinRuns is how many completed runs each side of a timing needs before a
// direction is decided: with four against four a Mann–Whitney U test can
// reach p < 0.05; with three against three it never can.
const MinRuns = stats.MinRuns

// Alpha is the significance level of that test, benchstat's.
var Alpha = benchmath.DefaultThresholds.CompareAlpha

// Confidence of the intervals (stats.Bootstrap makes them).
const Confidence = stats.Confidence

// IntervalMethod names how a timing's interval is made, once for tables.
const IntervalMethod = "95 % percentile bootstrap over runs (the ratio of the two sides' medians, runs resampled with replacement, 4000 times)"

// Row is one finding, published and here.
type Row struct {
	Finding reference.Finding
	// Paper is the published ratio as text: one value, a range, or
	// "direction only"; for a ranking, with the study's order.
	Paper string
	// PaperLow and PaperHigh are the published ratio (equal for one
	// value); HasPaper is false for a direction-only claim.
	PaperLow, PaperHigh float64
	HasPaper            bool
	// Num and Den are the two figures measured here (for a ranking, the
	// named stack and its runner-up, or the leader if it is not first);
	// Ratio is Num over Den.
	Num, Den Value
	Ratio    float64
	// Low and High bound Ratio at Confidence; both zero for an exact
	// measure or a side with one run.
	Low, High float64
	// Test names what decided the direction, with its p-value.
	Test    string
	Verdict Verdict
	// Degree says, for a direction that holds, how here's ratio sits
	// against the paper's: "as published", "stronger", "weaker".
	Degree string
	// Ranking is every contender's figure here, first to last.
	Ranking string
	// Why says what is missing when not measured, and what would decide
	// an inconclusive row.
	Why string
	// Outcome is what the trials of an outcome finding came back as
	// ("kept", or "kept and dropped"); empty for a ratio.
	Outcome string
	// Amount is what a finding judged on no ratio measured: an absolute
	// figure (Low and High its interval, in its unit) or a count of
	// cases (Figure says it in words).
	Amount float64
	Figure string
	// CaseRuns are the runs of each of an interaction's four cases.
	CaseRuns []int
}

// Check computes every finding of study from m.
func Check(study *reference.Study, m Measured) []Row {
	var rows []Row
	for _, f := range study.Findings {
		row := Row{Finding: f, Paper: paper(study, f)}
		row.PaperLow, row.PaperHigh, row.HasPaper = study.Published(f)
		switch {
		case f.Here.Outcome():
			m.outcome(&row)
		case f.Here.Needs != "":
			row.Verdict, row.Why = NotMeasured, "no measure of hopbench's reads this yet: "+f.Here.Needs
		case f.Absolute != nil:
			m.absolute(&row)
		case f.Cases != nil:
			m.cases(&row)
		case f.Rank != nil:
			m.rank(&row)
		case f.Here.Interaction():
			m.interaction(&row)
		default:
			m.pair(&row)
		}
		rows = append(rows, row)
	}
	return rows
}

// pair judges a finding of two sides.
func (m Measured) pair(row *Row) {
	f := row.Finding
	if f.Here.Measure == MeasureDelivered {
		m.delivered(row)
		return
	}
	var err error
	if row.Num, err = m.value(f.Here.Measure, f.Here.Num); err == nil {
		row.Den, err = m.value(f.Here.Measure, f.Here.Den)
	}
	switch {
	case err != nil:
		row.Verdict, row.Why = NotMeasured, err.Error()
		return
	case row.Num.V == 0 && row.Den.V == 0 && f.Here.Measure == "completed" && f.HoldsWhen != reference.About:
		// Runs that ended are a count, not a timing: none against none is
		// a tie, as one against one is.
		row.Ratio = 1
		row.Verdict, row.Test, row.Why = DoesNotHold, "exact measure", "a tie: neither side completed a run"
		return
	case row.Num.V == 0 && row.Den.V == 0:
		row.Verdict, row.Why = NotMeasured, "both sides measured 0: no direction"
		return
	}
	row.judge(f.HoldsWhen)
}

// interaction judges a ratio of two ratios: num/den over num2/den2. Its
// direction is significant when its bootstrap interval leaves out 1 (no
// rank test compares two ratios).
func (m Measured) interaction(row *Row) {
	h := row.Finding.Here
	sides := make([]Value, 4)
	for i, sel := range []map[string]string{h.Num, h.Den, h.Num2, h.Den2} {
		v, err := m.value(h.Measure, sel)
		if err != nil {
			row.Verdict, row.Why = NotMeasured, err.Error()
			return
		}
		sides[i] = v
		row.CaseRuns = append(row.CaseRuns, max(len(v.Runs), 1))
	}
	row.Num = Value{V: sides[0].V / sides[1].V, Unit: "×", Of: sides[0].String() + " over " + sides[1].String()}
	row.Den = Value{V: sides[2].V / sides[3].V, Unit: "×", Of: sides[2].String() + " over " + sides[3].String()}
	row.Ratio = row.Num.V / row.Den.V
	if !timing(h.Measure) {
		row.exactInteraction()
		return
	}
	runs := [][]float64{sides[0].Runs, sides[1].Runs, sides[2].Runs, sides[3].Runs}
	row.Low, row.High = stats.Bootstrap(runs, func(m []float64) float64 { return m[0] / m[1] / (m[2] / m[3]) })
	for _, r := range runs {
		if len(r) < MinRuns {
			row.Verdict, row.Test = Inconclusive, "none"
			row.Why = fmt.Sprintf("an interaction needs %d runs of each of its four cases", MinRuns)
			return
		}
	}
	row.Test = "interaction: the 95 % interval leaves out ×1"
	dir := row.Finding.HoldsWhen
	switch {
	case !finite(row.Low, row.High):
		row.Verdict, row.Test = Inconclusive, "interaction: no finite interval"
		row.Why = "a case's median is 0 in some resamples"
	case row.Low <= 1 && row.High >= 1:
		row.Verdict, row.Test = Inconclusive, "interaction: the 95 % interval holds ×1"
		row.Why = "no significant interaction: more runs, or a quieter machine, would tell one this small"
	case dir == reference.Less && row.High < 1 || dir == reference.Greater && row.Low > 1:
		row.Verdict, row.Degree = row.degree(dir, false)
	default:
		row.Verdict = DoesNotHold
	}
}

// exactInteraction judges an interaction of exact measures (bytes): no
// spread, so no interval and no runs needed; its direction is its
// ratio's, and a ratio of 1 is a tie.
func (row *Row) exactInteraction() {
	dir := row.Finding.HoldsWhen
	row.Test = "exact measure"
	switch {
	case !finite(row.Ratio):
		row.Verdict, row.Why = Inconclusive, "the ratio is not finite: a side measured 0"
	case row.Ratio == 1:
		row.Verdict, row.Why = DoesNotHold, "a tie: the two ratios are the same"
	case reference.Toward(dir, row.Ratio):
		row.Verdict, row.Degree = row.degree(dir, true)
	default:
		row.Verdict = DoesNotHold
	}
}

// judge sets ratio, interval, test and verdict from Num and Den, for a
// claim of direction dir (reference.Less, Greater or About).
func (row *Row) judge(dir string) {
	row.Ratio = row.Num.V / row.Den.V
	exact := !timing(row.Finding.Here.Measure)
	if !exact {
		row.Low, row.High = bootstrap(row.Num.Runs, row.Den.Runs)
	}
	if dir == reference.About {
		row.parity(exact)
		return
	}
	sig := true
	if exact {
		row.Test = "exact measure"
	} else {
		sig, row.Test, row.Why = significant(row.Num.Runs, row.Den.Runs)
	}
	toward := reference.Toward(dir, row.Ratio)
	switch {
	case !sig:
		row.Verdict = Inconclusive
	case row.Ratio == 1:
		row.Verdict, row.Why = DoesNotHold, "a tie: the two sides measure the same"
	case !finite(row.Ratio, row.Ratio):
		row.Verdict, row.Why = Inconclusive, "the ratio is not finite: a side measured 0"
	case !exact && !finite(row.Low, row.High):
		row.Low, row.High = 0, 0 // no interval to show
		row.Verdict, row.Degree = row.degree(dir, true)
		row.Why = "the interval is not finite (a side's median is 0 in some resamples); the degree is judged as for an exact measure"
		if !toward {
			row.Verdict, row.Degree = DoesNotHold, ""
		}
	case !toward:
		row.Verdict = DoesNotHold
	default:
		row.Verdict, row.Degree = row.degree(dir, exact)
	}
}

// degree compares a direction that holds with the paper's ratio: the
// whole interval inside the band around it holds, wholly outside holds in
// direction only, across an edge leaves the degree undecided.
func (row *Row) degree(dir string, exact bool) (Verdict, string) {
	if !row.HasPaper {
		return Holds, "the paper gives a direction only"
	}
	lo, hi := row.PaperLow/DegreeBand, row.PaperHigh*DegreeBand
	l, h := row.Low, row.High
	if exact || l == 0 && h == 0 {
		lo, hi = row.PaperLow/(1+Tolerance), row.PaperHigh*(1+Tolerance)
		l, h = row.Ratio, row.Ratio
	}
	band := fmt.Sprintf("the band ×%.3g to ×%.3g around the paper's ratio", lo, hi)
	switch {
	case l >= lo && h <= hi:
		return Holds, "as published: here's interval lies inside " + band
	case h < lo || l > hi:
		// Further from 1 in the claimed direction is stronger.
		if dir == reference.Less && h < lo || dir == reference.Greater && l > hi {
			return DirectionOnly, "stronger here than in the paper: here's interval lies beyond " + band
		}
		return DirectionOnly, "weaker here than in the paper: here's interval lies short of " + band
	}
	return DegreeUndecided, "here's interval straddles an edge of " + band + "; " + row.runsToDecide(lo, hi)
}

// runsToDecide says how many runs a side would narrow the interval off
// the band's edges, taking its width to shrink as one over the root of
// the runs, from the spread seen here.
func (row *Row) runsToDecide(lo, hi float64) string {
	n := min(len(row.Num.Runs), len(row.Den.Runs))
	if row.Low <= 0 || row.High <= 0 || n == 0 {
		return "more runs would narrow it"
	}
	c := math.Log(row.Ratio)
	half := max(math.Log(row.High)-c, c-math.Log(row.Low))
	edge := min(math.Abs(math.Log(lo)-c), math.Abs(math.Log(hi)-c))
	if edge < 1e-3 {
		return "the ratio sits on the band's edge: no number of runs would place it"
	}
	need := int(math.Ceil(float64(n) * (half / edge) * (half / edge)))
	if need > 1000 {
		return fmt.Sprintf("more than 1000 runs a side would be needed (%d here): the ratio sits too near the band's edge", n)
	}
	return fmt.Sprintf("about %d runs a side would decide it (%d here)", max(need, n+1), n)
}

// parity judges a "very similar" claim against the equivalence band, or
// the study's own tolerance; a significant difference inside it is told
// all the same, for what it does to every figure that side measures.
func (row *Row) parity(exact bool) {
	lo, hi := row.Finding.ParityBand()
	band := fmt.Sprintf("equivalence band ×%.3g to ×%.3g", lo, hi)
	if row.Finding.Band > 0 {
		band = fmt.Sprintf("the study's own tolerance, ×%.3g to ×%.3g", lo, hi)
	}
	defer row.tellDifference(exact)
	l, h := row.Low, row.High
	if exact {
		l, h = row.Ratio, row.Ratio
		row.Test = "exact measure, " + band
	} else {
		row.Test = band
	}
	switch {
	case !exact && (len(row.Num.Runs) < MinRuns || len(row.Den.Runs) < MinRuns):
		row.Verdict, row.Why = Inconclusive, fmt.Sprintf("%d and %d runs: %d or more a side (5 recommended) can place the interval against the band", len(row.Num.Runs), len(row.Den.Runs), MinRuns)
	case !exact && !finite(l, h):
		row.Verdict, row.Why = Inconclusive, "the interval is not finite (a side's median is 0 in some resamples)"
	case l >= lo && h <= hi:
		row.Verdict = Holds
	case h < lo || l > hi:
		row.Verdict = DoesNotHold
	default:
		row.Verdict, row.Why = Inconclusive, "the interval crosses the band's edge: more runs would narrow it"
	}
}

// tellDifference adds to a parity row whether its two sides differ
// significantly, and by how much: equivalent within a band is not equal.
func (row *Row) tellDifference(exact bool) {
	if exact {
		return
	}
	if sig, test, _ := significant(row.Num.Runs, row.Den.Runs); sig {
		row.Why = strings.TrimPrefix(fmt.Sprintf("%s; the two differ significantly here (×%.3g, %s): every figure of the first side carries that factor against the second's", row.Why, row.Ratio, test), "; ")
	}
}

// significant decides whether two sides' runs differ, by a Mann–Whitney U
// test over the runs; with fewer than MinRuns a side nothing is decided.
func significant(num, den []float64) (bool, string, string) {
	if len(num) < MinRuns || len(den) < MinRuns {
		return false, fmt.Sprintf("none: %d and %d runs", len(num), len(den)),
			fmt.Sprintf("%d and %d runs cannot show a significant difference: %d or more a side (5 recommended) can decide it", len(num), len(den), MinRuns)
	}
	th := &benchmath.Thresholds{CompareAlpha: Alpha}
	// NewSample sorts what it is given: the runs stay as recorded.
	c := benchmath.AssumeNothing.Compare(benchmath.NewSample(slices.Clone(num), th), benchmath.NewSample(slices.Clone(den), th))
	test := fmt.Sprintf("Mann–Whitney U, %d and %d runs: p=%.2g", len(num), len(den), c.P)
	if c.P > c.Alpha {
		return false, test, fmt.Sprintf("no significant difference at α=%g: more runs, or a quieter machine, would tell a difference this small", c.Alpha)
	}
	return true, test, ""
}

// RatioInterval is the Confidence interval of median(num)/median(den)
// over runs, as the reproductions' verdicts take it; zeros when a side has
// fewer than two runs.
func RatioInterval(num, den []float64) (lo, hi float64) { return bootstrap(num, den) }

// bootstrap is the Confidence interval of median(num)/median(den), from
// resampling each side's runs with replacement; zeros for a side with
// fewer than two runs. Seeded: one set of runs gives one interval.
func bootstrap(num, den []float64) (lo, hi float64) {
	return stats.Bootstrap([][]float64{num, den}, func(m []float64) float64 { return m[0] / m[1] })
}

func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

func short(v float64) string {
	if math.Abs(v) >= 1000 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func paper(s *reference.Study, f reference.Finding) string {
	switch {
	case f.Here.Outcome():
		return f.HoldsWhen
	case f.Absolute != nil:
		return absoluteText(f.Absolute)
	case f.Cases != nil:
		return casesText(f)
	case f.Here.Needs != "":
		return "as stated (no ratio)"
	}
	lo, hi, ok := s.Published(f)
	text := "direction only"
	switch {
	case f.HoldsWhen == reference.About && !ok:
		text = "about ×1 (parity)"
	case !ok:
	case lo == hi:
		text = ratioText(lo)
	default:
		text = ratioText(lo) + " to " + ratioText(hi)
	}
	if f.Rank != nil {
		text += "; ranking: " + f.Rank.Paper
	}
	if src, ok := s.SourceOf(f); ok { // a claim read on the web says what of its source was read
		text += " (read from " + strings.Join(strings.Fields(src.Read), " ") + ")"
	}
	return text
}

// ratioText writes a ratio as ×r and the difference it means, e.g.
// ×0.74 (−26 %).
func ratioText(r float64) string {
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return fmt.Sprintf("×%v", r)
	}
	return fmt.Sprintf("×%.3g (%+.0f %%)", r, (r-1)*100)
}

// Counts tallies the rows by verdict, in the verdicts' order.
func Counts(rows []Row) string {
	n := map[Verdict]int{}
	for _, r := range rows {
		n[r.Verdict]++
	}
	var parts []string
	for _, v := range Verdicts {
		parts = append(parts, fmt.Sprintf("%s %d", v, n[v]))
	}
	return strings.Join(parts, ", ")
}

// Table is the rows as a table: finding, claim, the paper's ratio, the
// ratio here with its interval, the two figures (or the ranking) it is
// made of, the test behind the direction, and the verdict.
func Table(rows []Row) (header []string, cells [][]string) {
	header = []string{"finding", "claim", "paper", "here", "95 % CI", "measured here", "test", "verdict"}
	for _, r := range rows {
		here, ci, from := "–", "–", r.Why
		if r.Outcome != "" {
			here, ci = r.Outcome, "exact"
		} else if fig, fci, ok := r.FigureCells(); ok && r.Verdict != NotMeasured {
			here, ci, from = fig, fci, strings.TrimPrefix(r.Why, "; ")
		} else if r.Verdict != NotMeasured {
			here = ratioText(r.Ratio)
			if r.Low != 0 || r.High != 0 {
				ci = fmt.Sprintf("×%.3g to ×%.3g", r.Low, r.High)
			} else if !timing(r.Finding.Here.Measure) {
				ci = "exact"
			}
			from = r.Num.String() + " / " + r.Den.String()
			if r.Ranking != "" {
				from = "ranking here: " + r.Ranking + "; " + from
			}
			for _, s := range []string{r.Degree, r.Why} {
				if s != "" {
					from += "; " + s
				}
			}
		}
		cells = append(cells, []string{r.Finding.ID, r.Finding.Claim, r.Paper, here, ci, from, r.Test, string(r.Verdict)})
	}
	return header, cells
}

// Significant says whether num's and den's runs differ by the test the
// verdicts use (Mann–Whitney U at Alpha), and the test's words; tested is
// false, and nothing is decided, when a side has fewer than MinRuns runs.
func Significant(num, den []float64) (differs, tested bool, test string) {
	if len(num) < MinRuns || len(den) < MinRuns {
		return false, false, ""
	}
	differs, test, _ = significant(num, den)
	return differs, true, test
}
