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

// funcs are what the template may call. Each takes the experiment's
// directory name first.
func (d *Doc) funcs() template.FuncMap {
	return template.FuncMap{
		// runs counts records, filtered ("outcome=out of memory").
		"runs": func(name string, where ...string) (int, error) {
			recs, err := d.records(name, where)
			return len(recs), err
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
		"finding":  d.finding,
		"tally":    d.tally,
		"verdicts": d.verdicts,
		"value":    d.value,
		"floor":    d.floor,
		"paper":    paperFigure,
		"ratio":    ratioText,
		"pct":      func(r float64) string { return fmt.Sprintf("%.0f", math.Abs(r-1)*100) },
		"fixed":    func(prec int, v float64) string { return fmt.Sprintf("%.*f", prec, v) },
		"sig":      func(v float64) string { return fmt.Sprintf("%.3g", v) },
		"group":    groupThousands,
	}
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

// ratioText is a ratio as the tables write it: ×0.72 (-28 %).
func ratioText(r float64) string {
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return fmt.Sprintf("×%v", r)
	}
	return fmt.Sprintf("×%.3g (%+.0f %%)", r, (r-1)*100)
}

// groupThousands writes an integer with a thin space between thousands:
// 1 134.
func groupThousands(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			b.WriteByte(' ')
		}
		b.WriteRune(c)
	}
	return b.String()
}
