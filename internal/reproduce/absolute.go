package reproduce

import (
	"fmt"
	"strings"

	"github.com/hopbench/hopbench/internal/stats"
	"github.com/hopbench/hopbench/reference"
)

// absolute judges a claim of a figure ("less than 2 ms", "164.3 ms"): the
// median of num's runs, less den's when the finding gives den, with its
// bootstrap interval; the interval wholly on the claim's side holds,
// wholly on the other does not, across the bound is undecided.
func (m Measured) absolute(row *Row) {
	f := row.Finding
	a := f.Absolute
	sides := [][]float64{}
	var err error
	if row.Num, err = m.value(f.Here.Measure, f.Here.Num); err == nil && len(f.Here.Den) > 0 {
		row.Den, err = m.value(f.Here.Measure, f.Here.Den)
	}
	if err == nil && row.Num.Unit != a.Unit {
		err = fmt.Errorf("%s is in %s, the claim in %s", f.Here.Measure, row.Num.Unit, a.Unit)
	}
	if err != nil {
		row.Verdict, row.Why = NotMeasured, err.Error()
		return
	}
	sides = append(sides, row.Num.Runs)
	stat := func(m []float64) float64 { return m[0] }
	row.Amount = row.Num.V
	if len(f.Here.Den) > 0 {
		sides = append(sides, row.Den.Runs)
		stat = func(m []float64) float64 { return m[0] - m[1] }
		row.Amount = row.Num.V - row.Den.V
	}
	row.Test = "the whole 95 % interval against " + absoluteText(a)
	for _, s := range sides {
		if len(s) < MinRuns {
			row.Verdict = Inconclusive
			row.Why = fmt.Sprintf("%d or more runs a side (5 recommended) can place the interval against the figure claimed", MinRuns)
			return
		}
	}
	row.Low, row.High = stats.Bootstrap(sides, stat)
	row.Verdict, row.Why = placeInterval(a, row.Low, row.High)
	if f.Here.Measure == MeasureClientLimit && a.About > 0 {
		note, undecided := m.limitBound(f.Here.Num, a.About*DegreeBand)
		switch {
		case undecided:
			row.Verdict, row.Why = Inconclusive, note
		case note != "":
			row.Why = strings.TrimPrefix(row.Why+"; "+note, "; ")
		}
	}
}

// placeInterval judges an interval against an absolute claim.
func placeInterval(a *reference.Absolute, lo, hi float64) (Verdict, string) {
	if a.Below > 0 {
		switch {
		case hi < a.Below:
			return Holds, ""
		case lo > a.Below:
			return DoesNotHold, fmt.Sprintf("the whole interval lies above %g %s", a.Below, a.Unit)
		}
		return Inconclusive, fmt.Sprintf("the interval holds %g %s: more runs would narrow it", a.Below, a.Unit)
	}
	blo, bhi := a.About/DegreeBand, a.About*DegreeBand
	band := fmt.Sprintf("the band %.3g to %.3g %s (×%.3g either way of %g)", blo, bhi, a.Unit, DegreeBand, a.About)
	switch {
	case lo >= blo && hi <= bhi:
		return Holds, "inside " + band
	case hi < blo:
		return DoesNotHold, "the whole interval lies below " + band
	case lo > bhi:
		return DoesNotHold, "the whole interval lies above " + band
	}
	return Inconclusive, "the interval straddles an edge of " + band + ": more runs would narrow it"
}

// absoluteText is the figure an absolute claim states: "below 2 ms".
func absoluteText(a *reference.Absolute) string {
	if a.Below > 0 {
		return fmt.Sprintf("below %g %s", a.Below, a.Unit)
	}
	return fmt.Sprintf("about %g %s", a.About, a.Unit)
}

// FigureCells are a row's figure and its interval when the finding is
// judged on no ratio (an absolute figure, a count of cases); ok is false
// for a ratio.
func (r Row) FigureCells() (here, ci string, ok bool) {
	switch f := r.Finding; {
	case f.Absolute != nil:
		here = fmt.Sprintf("%s %s", short(r.Amount), f.Absolute.Unit)
		if len(f.Here.Den) > 0 {
			here += " (a difference)"
		}
		if r.Low != 0 || r.High != 0 {
			ci = fmt.Sprintf("%s to %s %s", short(r.Low), short(r.High), f.Absolute.Unit)
		} else {
			ci = "–"
		}
		return here, ci, true
	case f.Cases != nil:
		return r.Figure, "–", true
	}
	return "", "", false
}
