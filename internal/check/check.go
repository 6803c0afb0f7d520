// Package check is what thresholds and the regression gate share: a check
// on a figure and its outcome (pass, fail or undecided), the exit status
// they make, and their two outputs, a plain table for the terminal and
// JUnit XML for CI.
package check

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Outcome is what a check concludes; these three and no others.
type Outcome string

const (
	// Pass: the whole interval is within the limit.
	Pass Outcome = "pass"
	// Fail: the whole interval is past the limit, or no figure stands
	// for it (Why says which).
	Fail Outcome = "fail"
	// Undecided: the interval holds the limit; more runs would narrow it.
	// It does not fail the command.
	Undecided Outcome = "undecided"
)

// Check is one limit judged on one subject: a threshold on a case, or a
// gate's tolerance on a configuration compared.
type Check struct {
	// Name is the check as written: "p99 < 10ms", "p50:+10%".
	Name string `json:"name"`
	// Kind is what made it: "threshold" or "gate".
	Kind string `json:"kind"`
	// Subject is what it is judged on: a case, or a configuration
	// compared.
	Subject string `json:"subject"`
	// Figure is the median over the runs (a gate's: the change, in %),
	// and Low and High its 95 % interval; Unit says how they read.
	Figure float64 `json:"figure"`
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
	Unit   Unit    `json:"unit"`
	// Measured is false when no figure stands (the runs' calls failed):
	// Figure, Low and High are then meaningless and Why says why.
	Measured bool   `json:"measured"`
	Limit    string `json:"limit"`
	// Runs is how many runs the figure is of (a gate's: the fewer of
	// the two sides').
	Runs    int     `json:"runs"`
	Outcome Outcome `json:"outcome"`
	// Why says how the outcome was reached: the interval's place, the
	// test, what is missing.
	Why string `json:"why,omitempty"`
}

// Unit is how a check's figures read.
type Unit string

const (
	Micros  Unit = "µs"    // a time in microseconds, shown in µs, ms or s
	Percent Unit = "%"     // a share or a change, in %
	PerSec  Unit = "req/s" // a rate
	Bytes   Unit = "B"     // a size
)

// Format writes v in unit u as a reader wants it: 412µs, 12.1ms, 0.12%,
// 5120 req/s, 6.4KB.
func (u Unit) Format(v float64) string {
	switch u {
	case Micros:
		return scaled(v, "µs", "ms", "s")
	case Percent:
		return trim(v) + "%"
	case Bytes:
		return scaled(v, "B", "KB", "MB")
	case PerSec:
		return trim(v) + " req/s"
	}
	return trim(v)
}

// scaled writes v in the largest of three units a thousand apart that it
// reaches: one, a thousand, a million.
func scaled(v float64, one, thousand, million string) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return trim(v/1e6) + million
	case a >= 1e3:
		return trim(v/1e3) + thousand
	}
	return trim(v) + one
}

// trim is v to three significant digits, or whole above 1000.
func trim(v float64) string {
	if math.Abs(v) >= 1000 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// FigureText is the check's figure with its interval, "12.1ms [11.8ms,
// 12.5ms]", or "none" when no figure stands.
func (c Check) FigureText() string {
	if !c.Measured {
		return "none"
	}
	return c.Unit.Format(c.Figure) + " " + c.IntervalText()
}

// IntervalText is "[low, high]" in the check's unit.
func (c Check) IntervalText() string {
	return "[" + c.Unit.Format(c.Low) + ", " + c.Unit.Format(c.High) + "]"
}

// Summary is the check in one line: what was judged, its figure, the
// limit and the outcome, with why.
func (c Check) Summary() string {
	s := fmt.Sprintf("%s on %s: %s over %d runs, limit %s: %s", c.Name, c.Subject, c.FigureText(), c.Runs, c.Limit, c.Outcome)
	if c.Why != "" {
		s += " (" + c.Why + ")"
	}
	return s
}

// Failed says whether any check failed: what makes the command exit
// with ExitFailed.
func Failed(checks []Check) bool {
	for _, c := range checks {
		if c.Outcome == Fail {
			return true
		}
	}
	return false
}

// Count is how many checks came out each way: "2 passed, 1 failed,
// 0 undecided".
func Count(checks []Check) string {
	n := map[Outcome]int{}
	for _, c := range checks {
		n[c.Outcome]++
	}
	return fmt.Sprintf("%d passed, %d failed, %d undecided", n[Pass], n[Fail], n[Undecided])
}

// Table writes the checks for the terminal under a title: a count, then
// one row each: outcome, subject, check, figure (median), interval, runs,
// and why.
func Table(w io.Writer, title string, checks []Check) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", title, Count(checks))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "outcome\tcase\tcheck\tfigure\t95% interval\truns\twhy")
	for _, c := range checks {
		fig, ci := "none", "–"
		if c.Measured {
			fig, ci = c.Unit.Format(c.Figure), c.IntervalText()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", strings.ToUpper(string(c.Outcome)), c.Subject, c.Name, fig, ci, c.Runs, c.Why)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}
