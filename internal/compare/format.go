package compare

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchmath"

	"github.com/hopbench/hopbench/internal/results"
)

// Write prints the comparison as benchstat does: per metric, each set's
// median ± its confidence interval, and the change, or ~ where the test
// finds no significant difference. nameA and nameB label the sets.
func (r *Result) Write(w io.Writer, nameA, nameB string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "A: %s\nB: %s\n", nameA, nameB)
	for _, f := range r.Fixed {
		fmt.Fprintf(&b, "compared: %s %s (A) with %s (B)\n", f.Dim, f.A, f.B)
	}
	var notes []string
	note := func(err error) string {
		for i, n := range notes {
			if n == err.Error() {
				return superscript(i + 1)
			}
		}
		notes = append(notes, err.Error())
		return superscript(len(notes))
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	var metric string
	for _, row := range r.Rows {
		if row.Metric.Name != metric {
			metric = row.Metric.Name
			fmt.Fprintf(tw, "\n%s\tA\tB\tvs A\n", metric)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", row.Key, summary(row.A, note), summary(row.B, note), delta(row, note))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Rows) == 0 {
		b.WriteString("\nno configuration was measured in both (see below)\n")
	}
	fmt.Fprintf(&b, "\n± is the 95%% confidence interval of the median over repetitions; ~ means no significant difference (Mann–Whitney U, p > %.2f).\n", r.Alpha)
	for i, n := range notes {
		fmt.Fprintf(&b, "%s %s\n", superscript(i+1), n)
	}
	for _, k := range r.OnlyA {
		fmt.Fprintf(&b, "only in A: %s\n", k)
	}
	for _, k := range r.OnlyB {
		fmt.Fprintf(&b, "only in B: %s\n", k)
	}
	for _, k := range r.LeftOutA {
		fmt.Fprintf(&b, "left out of A: %s\n", k)
	}
	for _, k := range r.LeftOutB {
		fmt.Fprintf(&b, "left out of B: %s\n", k)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func summary(s benchmath.Summary, note func(error) string) string {
	out := figure(s.Center)
	if !math.IsInf(s.Lo, 0) && !math.IsInf(s.Hi, 0) && s.Center != 0 {
		out += " ± " + s.PctRangeString()
	}
	for _, w := range s.Warnings {
		out += " " + note(w)
	}
	return out
}

func delta(r Row, note func(error) string) string {
	var out string
	switch {
	case !r.Significant:
		out = "~"
	case r.A.Center == 0:
		out = "?"
	default:
		d := 100 * r.Delta()
		better := (d > 0) == r.Metric.HigherIsBetter
		word := "worse"
		if better {
			word = "better"
		}
		out = fmt.Sprintf("%+.1f%% (%s)", d, word)
	}
	out += " (" + r.Cmp.String() + ")"
	for _, w := range r.Cmp.Warnings {
		out += " " + note(w)
	}
	return out
}

// figure prints a value with about four significant digits.
func figure(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

func superscript(n int) string {
	digits := []rune("⁰¹²³⁴⁵⁶⁷⁸⁹")
	var out []rune
	for _, c := range strconv.Itoa(n) {
		out = append(out, digits[c-'0'])
	}
	return string(out)
}

// Benchfmt writes the runs whose figures stand as Go benchmark results,
// one line per repetition, so `benchstat a.txt b.txt` (or -col /stack) reads them:
//
//	BenchmarkHopbench/stack=grpc/topology=direct/op=echo/payload=text×100/load=closed:1 N V req/s V p50-ns ...
//
// A feed's line (op=feed:N) goes on with V first-p50-ns V first-p99-ns V
// msg/s, under the same name: benchstat makes a table a unit, each of the
// benchmarks that report it, so unary lines need no zeros for them.
// N is the run's requests. A "/" inside a value (rate:1000/poisson) becomes
// "," and a space "+", as benchmark names allow neither. leftOut names
// the runs that measured to their end but that a flag withholds.
func Benchfmt(w io.Writer, recs []results.Record) (leftOut []string, err error) {
	var b strings.Builder
	recs, leftOut = Standing(recs)
	if len(recs) > 0 {
		e := recs[0].Environment
		fmt.Fprintf(&b, "goos: %s\ngoarch: %s\ncpu: %s\nhopbench: %s\n", e.OS, e.Arch, e.CPU, e.Hopbench)
		if gc := results.GCTargets(recs); gc != "" {
			fmt.Fprintf(&b, "generator-gogc: %s\n", gc)
		}
	}
	experiment := ""
	for _, r := range recs {
		if r.Experiment != experiment {
			experiment = r.Experiment
			fmt.Fprintf(&b, "experiment: %s\n", experiment)
		}
		b.WriteString("BenchmarkHopbench")
		for _, d := range dims {
			if v := d.of(&r); v != "" {
				fmt.Fprintf(&b, "/%s=%s", d.name, strings.NewReplacer("/", ",", " ", "+").Replace(v))
			}
		}
		fmt.Fprintf(&b, " %d %s req/s %d p50-ns %d p90-ns %d p99-ns %d p99.9-ns %s client-µs/req",
			r.Requests, strconv.FormatFloat(r.RPS, 'f', -1, 64), r.P50Us*1000, r.P90Us*1000, r.P99Us*1000, r.P999Us*1000,
			strconv.FormatFloat(r.ClientCPUUsPerReq, 'f', -1, 64))
		if fed(&r) {
			fmt.Fprintf(&b, " %d first-p50-ns %d first-p99-ns %s msg/s", r.FirstMessage.P50Us*1000, r.FirstMessage.P99Us*1000,
				strconv.FormatFloat(r.MessagesPerS, 'f', -1, 64))
		}
		b.WriteString("\n")
	}
	_, err = io.WriteString(w, b.String())
	return leftOut, err
}
