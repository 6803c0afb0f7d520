package expdoc

import (
	"fmt"
	"math"
	"strings"

	"github.com/hopbench/hopbench/internal/reproduce"
)

// tally is the study's findings counted by verdict, as its section opens:
// "18 findings: holds 6, …".
func (d *Doc) tally(name string) (string, error) {
	e, err := d.exp(name)
	if err != nil {
		return "", err
	}
	rows := ratios(e.rows)
	if len(rows) == 0 {
		return "", fmt.Errorf("%s reproduces no study", name)
	}
	return fmt.Sprintf("%d findings: %s", len(rows), reproduce.Counts(rows)), nil
}

// ratios are the rows judged on a ratio; the schema trials' outcome
// findings are the evolution section's.
func ratios(rows []reproduce.Row) []reproduce.Row {
	var out []reproduce.Row
	for _, r := range rows {
		if !r.Finding.Here.Outcome() {
			out = append(out, r)
		}
	}
	return out
}

// verdicts is the study's paper-vs-here table as the page condenses the
// report's: the paper's ratio, here's (with the ranking here for a
// superlative), its interval, the runs a side and the verdict with its
// degree's word. Outcome findings (schema trials) are left out (ratios);
// given ids, the rows of those findings alone, in that order.
func (d *Doc) verdicts(name string, ids ...string) (string, error) {
	e, err := d.exp(name)
	if err != nil {
		return "", err
	}
	var rows []reproduce.Row
	if len(ids) == 0 {
		rows = ratios(e.rows)
	}
	for _, id := range ids {
		r, err := e.finding(id)
		if err != nil {
			return "", err
		}
		rows = append(rows, r)
	}
	var b strings.Builder
	b.WriteString("| finding | paper | here | 95 % CI | runs a side | verdict |\n|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", r.Finding.ID, paperCell(r), hereCell(r), ciCell(r), runsCell(r), verdictCell(r))
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

func paperCell(r reproduce.Row) string {
	p, _, _ := strings.Cut(r.Paper, "; ranking:")
	return p
}

func hereCell(r reproduce.Row) string {
	if r.Verdict == reproduce.NotMeasured {
		return "–"
	}
	if fig, _, ok := r.FigureCells(); ok {
		return fig
	}
	s := ratioText(r.Ratio)
	if r.Ranking != "" {
		s += "; " + r.Ranking
	}
	return s
}

func ciCell(r reproduce.Row) string {
	_, fci, figure := r.FigureCells()
	switch {
	case r.Verdict == reproduce.NotMeasured:
		return "–"
	case figure:
		return fci
	case math.IsNaN(r.Low) || math.IsInf(r.High, 0):
		return "– (runs at 0)"
	case r.Low != 0 || r.High != 0:
		return fmt.Sprintf("×%.3g to ×%.3g", r.Low, r.High)
	case strings.HasPrefix(r.Test, "exact") || strings.HasPrefix(r.Test, "Fisher"):
		return "exact"
	}
	return "–"
}

func runsCell(r reproduce.Row) string {
	a, b := len(r.Num.Runs), len(r.Den.Runs)
	switch {
	case r.Verdict == reproduce.NotMeasured || r.Finding.Cases != nil:
		return "–"
	case len(r.CaseRuns) > 0:
		return strings.Trim(strings.ReplaceAll(fmt.Sprint(r.CaseRuns), " ", " / "), "[]") + " (each case)"
	case r.Finding.Absolute != nil && len(r.Finding.Here.Den) == 0:
		return fmt.Sprint(a)
	case a <= 1 && b <= 1:
		return "1"
	}
	return fmt.Sprintf("%d / %d", a, b)
}

// verdictCell is the verdict with the word of its degree: "holds in
// direction only (stronger)".
func verdictCell(r reproduce.Row) string {
	v := string(r.Verdict)
	switch {
	case r.Verdict == reproduce.DirectionOnly && strings.HasPrefix(r.Degree, "stronger"):
		v += " (stronger)"
	case r.Verdict == reproduce.DirectionOnly && strings.HasPrefix(r.Degree, "weaker"):
		v += " (weaker)"
	}
	return v
}
