package expdoc

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"text/template"
	"time"

	"github.com/hopbench/hopbench/internal/reproduce"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/reference"
)

// funcs are what the template may call: those that read the records,
// each taking the experiment's directory name first, and the pure ones
// that write or combine figures (formatFuncs).
func (d *Doc) funcs() template.FuncMap {
	fm := template.FuncMap{
		// figured counts the runs where picks that give measure a figure
		// (the capacity searches that bracketed their capacity).
		"figured": func(name, measure string, where ...string) (int, error) {
			vs, err := d.figures(name, measure, where)
			return len(vs), err
		},
		// runs counts records, filtered ("outcome=out of memory").
		"runs": func(name string, where ...string) (int, error) {
			recs, err := d.records(name, where)
			return len(recs), err
		},
		// cases counts the distinct cases of the runs where picks.
		"cases": func(name string, where ...string) (int, error) {
			recs, err := d.records(name, where)
			return len(casesOf(recs)), err
		},
		// outcomes is the records by outcome: "270 ok, 14 out of memory".
		"outcomes": func(name string, where ...string) (string, error) {
			recs, err := d.records(name, where)
			return outcomes(recs), err
		},
		// minutes is the measured time of the records, summed, rounded.
		"minutes": func(name string, where ...string) (int, error) {
			recs, err := d.records(name, where)
			return minutes(recs), err
		},
		"trials": func(name string, where ...string) (int, error) {
			ts, err := d.pickTrials(name, where)
			return len(ts), err
		},
		"finding": d.finding, "tally": d.tally, "verdicts": d.verdicts, "value": d.value, "floor": d.floor,
		"median": d.median, "total": d.total, "spread": d.spread, "span": d.span, "compare": d.compare, "twins": d.twins,
		"corruption": d.corruption, "outcomeTally": d.outcomeTally, "delivered": d.delivered, "replies": d.replies,
		"parity": d.parity, "ranking": d.ranking, "leaders": d.leaders,
		"env": d.env, "duration": d.duration, "date": d.date, "codec": d.codec,
		"brokerVersion": d.brokerVersion, "library": d.library, "totalMinutes": d.totalMinutes,
	}
	for k, f := range formatFuncs {
		fm[k] = f
	}
	return fm
}

// formatFuncs write figures, or combine them, without reading records.
var formatFuncs = template.FuncMap{
	"paper": paperFigure,
	"pct":   func(r float64) string { return fmt.Sprintf("%.0f", math.Abs(r-1)*100) },
	// percent is pct with prec decimals: 25.8.
	"percent": func(prec int, r float64) string { return fmt.Sprintf("%.*f", prec, math.Abs(r-1)*100) },
	"fixed":   func(prec int, v float64) string { return fmt.Sprintf("%.*f", prec, v) },
	"sig":     func(v float64) string { return fmt.Sprintf("%.3g", v) },
	"digits":  digits, "ms": ms, "group": groupThousands,
	"name": stackName, "names": stackNamesOf,
	"div":    func(a, b float64) float64 { return a / b },
	"sub":    func(a, b float64) float64 { return a - b },
	"mul":    func(a, b float64) float64 { return a * b },
	"mul100": func(a float64) float64 { return a * 100 },
	"float":  func(n int) float64 { return float64(n) },
	// list is its arguments, for a filter passed whole (compare) or
	// ranged over.
	"list":     func(s ...string) []string { return s },
	"count":    count,
	"position": position,
	"distinct": distinct,
	"words":    words,
	"last":     func(list []string) string { return list[len(list)-1] },
	// values, collect and spreadOf gather figures in the template
	// ({{$v = collect $v (median …)}}) for their spread.
	"values":   func() []float64 { return nil },
	"collect":  func(vs []float64, v float64) []float64 { return append(vs, v) },
	"spreadOf": results.SpreadOf,
	"minRuns":  func() int { return reproduce.MinRuns },
}

func (d *Doc) records(name string, where []string) ([]results.Record, error) {
	e, err := d.exp(name)
	if err != nil {
		return nil, err
	}
	return filter(e.recs, where)
}

func (d *Doc) finding(name, id string) (reproduce.Row, error) {
	e, err := d.exp(name)
	if err != nil {
		return reproduce.Row{}, err
	}
	return e.finding(id)
}

// value is a measure of the one case the selector picks ("stack=rest",
// "part=flat-sizes", …), as the verdicts read it.
func (d *Doc) value(name, measure string, sel ...string) (reproduce.Value, error) {
	e, err := d.exp(name)
	if err != nil {
		return reproduce.Value{}, err
	}
	m := map[string]string{}
	for _, s := range sel {
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			return reproduce.Value{}, fmt.Errorf("selector %q: want key=value", s)
		}
		m[k] = v
	}
	return e.m.Value(measure, m)
}

// floor is the median over the records of a calibration figure: tcp or
// http round trip (µs), or generator CPU per request (µs).
func (d *Doc) floor(name, what string) (float64, error) {
	e, err := d.exp(name)
	if err != nil {
		return 0, err
	}
	var vs []float64
	for _, r := range e.recs {
		if c := r.Calibration; c != nil {
			v := map[string]float64{"tcp": c.TCPRoundTripUs, "http": c.HTTPRoundTripUs, "generator": c.GeneratorCPUUsPerReq}[what]
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return 0, fmt.Errorf("%s: no record carries a calibration", name)
	}
	return results.SpreadOf(vs).Median, nil
}

// paperFigure is a figure typed in from a study (reference/).
func paperFigure(study, id string) (float64, error) {
	s, err := reference.Lookup(study)
	if err != nil {
		return 0, err
	}
	for _, f := range s.Figures {
		if f.ID == id {
			return f.Value, nil
		}
	}
	return 0, fmt.Errorf("%s: no figure %q", study, id)
}

func outcomes(recs []results.Record) string {
	n := map[string]int{}
	var order []string
	for _, r := range recs {
		if n[r.Outcome] == 0 {
			order = append(order, r.Outcome)
		}
		n[r.Outcome]++
	}
	slices.SortStableFunc(order, func(a, b string) int { return n[b] - n[a] })
	parts := make([]string, len(order))
	for i, o := range order {
		parts[i] = fmt.Sprintf("%d %s", n[o], o)
	}
	return strings.Join(parts, ", ")
}

func minutes(recs []results.Record) int {
	var d time.Duration
	for _, r := range recs {
		d += r.Ended.Sub(r.Started)
	}
	return int(math.Round(d.Minutes()))
}

// Band is a ratio's band, lowest to highest.
type Band struct{ Low, High float64 }

// parity is a parity finding's band: the study's own tolerance, or the
// verdicts' equivalence band.
func (d *Doc) parity(name, id string) (Band, error) {
	row, err := d.finding(name, id)
	if err != nil {
		return Band{}, err
	}
	if row.Finding.HoldsWhen != reference.About {
		return Band{}, fmt.Errorf("%s: %s is not a parity claim", name, id)
	}
	lo, hi := row.Finding.ParityBand()
	return Band{Low: lo, High: hi}, nil
}
