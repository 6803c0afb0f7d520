// Package reproduce sets a published study's findings beside what
// hopbench measured: for each finding, the ratio the study published and
// the same ratio computed from the records (and codec timings) of a
// reproduction, and whether the direction the study claims holds here.
package reproduce

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchmath"

	"github.com/hopbench/hopbench/internal/codecbench"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/reference"
)

// Measured is what a reproduction measured.
type Measured struct {
	Records []results.Record
	// Codecs are the in-process codec timings (codec.json), if any.
	Codecs []codecbench.Record
	// Binaries are hopbench's size built with each stack alone
	// (binaries.json, from scripts/binsize.sh), if measured.
	Binaries *Binaries
}

// BinariesFile is where scripts/binsize.sh's output is read from, beside
// the results.
const BinariesFile = "binaries.json"

// Binaries is scripts/binsize.sh's output: the size of hopbench built with
// no stack ("none") and with each stack alone.
type Binaries struct {
	Go       string `json:"go"`
	Flags    string `json:"flags"`
	Binaries []struct {
		Stack string `json:"stack"`
		Bytes int64  `json:"bytes"`
	} `json:"binaries"`
}

func (b *Binaries) size(stack string) (int64, bool) {
	for _, x := range b.Binaries {
		if x.Stack == stack {
			return x.Bytes, true
		}
	}
	return 0, false
}

// added is what a stack's libraries add to a hopbench built with none.
func (b *Binaries) added(sel map[string]string) (Value, error) {
	if b == nil {
		return Value{}, fmt.Errorf("binary sizes not measured (scripts/binsize.sh DIR/%s writes them beside the results)", BinariesFile)
	}
	tech, _, _ := strings.Cut(sel["stack"], "+")
	size, ok := b.size(tech)
	none, nok := b.size("none")
	if !ok || !nok {
		return Value{}, fmt.Errorf("%s has no size of %q and of none", BinariesFile, tech)
	}
	return Value{V: float64(size - none), Unit: "B", Of: fmt.Sprintf("hopbench with %s alone, %d B, less hopbench with no stack, %d B; %s %s", tech, size, none, b.Go, b.Flags)}, nil
}

// Verdict is what a row concludes.
type Verdict string

const (
	Holds       Verdict = "holds"
	DoesNotHold Verdict = "does not hold"
	NotMeasured Verdict = "not measured"
	// Close is a timing whose two sides are not told apart: on a shared
	// machine, runs that differ by a few percent say nothing about a
	// direction (see noDirection).
	Close Verdict = "too close to call"
)

// Noise is the relative difference under which a timing ratio measured on
// fewer than MinRuns runs a side has no direction; byte counts and
// completions are exact and always have one.
const Noise = 0.05

// MinRuns is how many completed runs each side of a timing needs before
// its direction is decided by a significance test instead of the Noise
// band: with four against four, a Mann–Whitney U test can reach p < 0.05;
// with three against three it never can.
const MinRuns = 4

// Alpha is the significance level of that test, benchstat's.
var Alpha = benchmath.DefaultThresholds.CompareAlpha

// noDirection reports whether a timing's two sides are too close to call,
// and why. With MinRuns runs a side, a Mann–Whitney U test over the runs
// decides (a significant difference has a direction however small; a
// large one between scattered runs may have none); with fewer, a ratio
// within Noise of 1 has no direction.
func noDirection(num, den Value, ratio float64) (bool, string) {
	if len(num.Runs) < MinRuns || len(den.Runs) < MinRuns {
		return math.Abs(ratio-1) < Noise, ""
	}
	th := &benchmath.Thresholds{CompareAlpha: Alpha}
	cmp := benchmath.AssumeNothing.Compare(benchmath.NewSample(num.Runs, th), benchmath.NewSample(den.Runs, th))
	test := fmt.Sprintf("Mann–Whitney U over %d and %d runs: p=%.2g", len(num.Runs), len(den.Runs), cmp.P)
	if cmp.P > cmp.Alpha {
		return true, test + fmt.Sprintf(", no significant difference at α=%g", cmp.Alpha)
	}
	return false, test
}

// Row is one finding, published and here.
type Row struct {
	Finding reference.Finding
	// Paper is the published ratio as text: one value, a range, or
	// "direction only".
	Paper string
	// Num and Den are the two figures measured here, each with what it
	// was measured on; Ratio is Num over Den.
	Num, Den Value
	Ratio    float64
	Verdict  Verdict
	// Why says what is missing when not measured, and names the test
	// behind a timing's verdict when one decided it.
	Why string
}

// Value is one side of a ratio as measured here.
type Value struct {
	V    float64
	Unit string
	// Of names what was measured: the case, or the codec and payload.
	Of string
	// Runs are the completed runs' values V is the median of; none for
	// codec timings and binary sizes.
	Runs []float64
}

func (v Value) String() string {
	n := strconv.FormatFloat(v.V, 'g', 4, 64)
	if math.Abs(v.V) >= 1000 {
		n = strconv.FormatFloat(v.V, 'f', 0, 64)
	}
	if len(v.Runs) > 1 {
		return fmt.Sprintf("%s %s, median of %d runs (%s)", n, v.Unit, len(v.Runs), v.Of)
	}
	return fmt.Sprintf("%s %s (%s)", n, v.Unit, v.Of)
}

// Check computes every finding of study from m.
func Check(study *reference.Study, m Measured) []Row {
	var rows []Row
	for _, f := range study.Findings {
		row := Row{Finding: f, Paper: paper(study, f)}
		var err error
		if row.Num, err = m.value(f.Here.Measure, f.Here.Num); err == nil {
			row.Den, err = m.value(f.Here.Measure, f.Here.Den)
		}
		switch {
		case err != nil:
			row.Verdict, row.Why = NotMeasured, err.Error()
		case row.Num.V == 0 && row.Den.V == 0:
			row.Verdict, row.Why = NotMeasured, "both sides measured 0: no direction"
		default:
			row.Ratio = row.Num.V / row.Den.V
			row.Verdict = DoesNotHold
			close := false
			if timing(f.Here.Measure) {
				close, row.Why = noDirection(row.Num, row.Den, row.Ratio)
			}
			switch {
			case close:
				row.Verdict = Close
			case f.Holds(row.Ratio):
				row.Verdict = Holds
			}
		}
		rows = append(rows, row)
	}
	return rows
}

func paper(s *reference.Study, f reference.Finding) string {
	lo, hi, ok := s.Published(f)
	switch {
	case !ok:
		return "direction only"
	case lo == hi:
		return ratioText(lo)
	}
	return ratioText(lo) + " to " + ratioText(hi)
}

// ratioText writes a ratio as ×r and the difference it means, e.g.
// ×0.74 (−26 %).
func ratioText(r float64) string {
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return fmt.Sprintf("×%v", r)
	}
	return fmt.Sprintf("×%.3g (%+.0f %%)", r, (r-1)*100)
}

// Measures are what a finding's here may name, each with its unit.
var Measures = map[string]string{
	"p50": "ms", "mean": "ms", "rps": "req/s", "server_ms": "ms", "boot_ms": "ms", "floor": "ms",
	"request_wire_bytes": "B", "response_wire_bytes": "B", "wire_bytes": "B", "rss": "MiB", "anon_rss": "MiB", "completed": "runs",
	"marshal_ns": "ns", "unmarshal_ns": "ns", "encoded_bytes": "B",
	"binary_added_bytes": "B",
}

var codecMeasures = []string{"marshal_ns", "unmarshal_ns", "encoded_bytes"}

// timing reports whether a measure varies from run to run (times, rates,
// memory) rather than being exact (bytes, completions).
func timing(measure string) bool {
	return !strings.HasSuffix(measure, "_bytes") && measure != "completed"
}

// value measures one side of a finding: the median over the repetitions
// of the one case sel picks.
func (m Measured) value(measure string, sel map[string]string) (Value, error) {
	unit, ok := Measures[measure]
	if v, set := sel["measure"]; set {
		measure, unit, ok = v, Measures[v], Measures[v] != ""
	}
	switch {
	case !ok:
		return Value{}, fmt.Errorf("unknown measure %q", measure)
	case measure == "binary_added_bytes":
		return m.Binaries.added(sel)
	case slices.Contains(codecMeasures, measure):
		return m.codecValue(measure, unit, sel)
	}
	recs, err := m.pick(sel)
	if err != nil {
		return Value{}, err
	}
	of := recs[0].Case
	var vs []float64
	for _, r := range recs {
		if measure == "completed" {
			vs = append(vs, map[bool]float64{true: 1}[r.Completed()])
			continue
		}
		if !r.Completed() {
			continue
		}
		v, err := recordValue(&r, measure)
		if err != nil {
			return Value{}, fmt.Errorf("%s: %w", of, err)
		}
		vs = append(vs, v)
	}
	if len(vs) == 0 {
		return Value{}, fmt.Errorf("%s: no run completed (%s: %s)", of, recs[0].Outcome, recs[0].Reason)
	}
	return Value{V: results.SpreadOf(vs).Median, Unit: unit, Of: of, Runs: vs}, nil
}

func recordValue(r *results.Record, measure string) (float64, error) {
	switch measure {
	case "p50":
		return float64(r.P50Us) / 1000, nil
	case "mean":
		return r.MeanUs / 1000, nil
	case "rps":
		return r.RPS, nil
	case "floor":
		if r.Calibration == nil {
			return 0, fmt.Errorf("run without calibration (run without --no-calibrate)")
		}
		return r.Calibration.HTTPRoundTripUs / 1000, nil
	case "rss":
		var peak int64
		for _, n := range r.Nodes {
			peak = max(peak, n.PeakRSS)
		}
		return float64(peak) / (1 << 20), nil
	case "anon_rss":
		_, _, largest := r.Services()
		if largest == 0 {
			return 0, fmt.Errorf("no anonymous RSS recorded (a record from before hopbench kept it: run again)")
		}
		return float64(largest) / (1 << 20), nil
	case "boot_ms":
		if len(r.Nodes) == 0 {
			return 0, fmt.Errorf("no nodes recorded")
		}
		var sum float64
		for _, n := range r.Nodes {
			sum += n.BootMs
		}
		return sum / float64(len(r.Nodes)), nil
	case "server_ms":
		return entryServerMs(r)
	}
	if r.Wire == nil {
		return 0, fmt.Errorf("no wire bytes recorded")
	}
	switch measure {
	case "request_wire_bytes":
		return r.Wire.Sent, nil
	case "response_wire_bytes":
		return r.Wire.Received, nil
	}
	return r.Wire.Sent + r.Wire.Received, nil // wire_bytes
}

// entryServerMs is the entry node's own time per request (its total
// phase: from reading the request to writing the reply, downstream calls
// included), mean.
func entryServerMs(r *results.Record) (float64, error) {
	for _, n := range r.Nodes {
		if n.Index != 0 {
			continue
		}
		var st struct {
			Phases map[string]stats.Summary `json:"phases_us"`
		}
		if err := json.Unmarshal(n.Stats, &st); err != nil {
			return 0, fmt.Errorf("entry node's stats: %w", err)
		}
		total, ok := st.Phases["total"]
		if !ok {
			return 0, fmt.Errorf("entry node reported no total phase")
		}
		return total.MeanUs / 1000, nil
	}
	return 0, fmt.Errorf("no entry node recorded")
}

// pick returns the records sel selects, all of one case.
func (m Measured) pick(sel map[string]string) ([]results.Record, error) {
	var out []results.Record
	cases := map[string]bool{}
	for _, r := range m.Records {
		if matches(&r, sel) {
			out = append(out, r)
			cases[r.Case] = true
		}
	}
	switch {
	case len(out) == 0:
		return nil, fmt.Errorf("no run with %s in these results (a smaller scale, or another experiment?)", selText(sel))
	case len(cases) > 1:
		return nil, fmt.Errorf("%s picks %d different cases; the finding's selector needs narrowing", selText(sel), len(cases))
	}
	return out, nil
}

func matches(r *results.Record, sel map[string]string) bool {
	words := strings.Fields(r.Options)
	for k, v := range sel {
		var got string
		switch k {
		case "measure":
			continue
		case "part":
			got = r.Part
		case "stack":
			if st, err := transport.ParseStack(v); err == nil {
				v = st.String() // rest+json+gzip is rest+gzip
			}
			got = r.Stack
		case "topology":
			got = r.Topology
		case "op":
			got = r.Op
		case "model":
			got = r.Model
		case "count":
			got = strconv.Itoa(r.Count)
		case "load":
			got = r.Load
		case "tls", "cache", "h2", "mtls":
			got = strconv.FormatBool(slices.Contains(words, k))
		default:
			return false
		}
		if got != v {
			return false
		}
	}
	return true
}

func (m Measured) codecValue(measure, unit string, sel map[string]string) (Value, error) {
	var found []codecbench.Record
	for _, c := range m.Codecs {
		ok := true
		for k, v := range sel {
			switch k {
			case "model":
				ok = ok && c.Model == v
			case "count":
				ok = ok && strconv.Itoa(c.Count) == v
			case "codec":
				ok = ok && c.Codec == v
			case "compress":
				ok = ok && c.Compress == v
			case "measure":
			default:
				ok = false
			}
		}
		if ok {
			found = append(found, c)
		}
	}
	switch {
	case len(found) == 0:
		return Value{}, fmt.Errorf("no codec timing of %s (the spec's codecs: list times them into codec.json)", selText(sel))
	case len(found) > 1:
		return Value{}, fmt.Errorf("%s picks %d codec timings; the finding's selector needs narrowing", selText(sel), len(found))
	}
	c := found[0]
	v := map[string]float64{"marshal_ns": c.MarshalNs, "unmarshal_ns": c.UnmarshalNs, "encoded_bytes": float64(c.CompressedBytes)}[measure]
	return Value{V: v, Unit: unit, Of: fmt.Sprintf("%s+%s %s×%d, in-process", c.Codec, c.Compress, c.Model, c.Count)}, nil
}

func selText(sel map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(sel)) {
		if k != "measure" {
			parts = append(parts, k+"="+sel[k])
		}
	}
	return strings.Join(parts, " ")
}

// Table is the rows as a table: finding, claim, the paper's ratio, the
// ratio here, the two figures it is made of, and the verdict.
func Table(rows []Row) (header []string, cells [][]string) {
	header = []string{"finding", "claim", "paper", "here", "measured here (numerator / denominator)", "verdict"}
	for _, r := range rows {
		here, from := "–", r.Why
		if r.Verdict != NotMeasured {
			here, from = ratioText(r.Ratio), r.Num.String()+" / "+r.Den.String()
			if r.Why != "" {
				from += "; " + r.Why
			}
		}
		cells = append(cells, []string{r.Finding.ID, r.Finding.Claim, r.Paper, here, from, string(r.Verdict)})
	}
	return header, cells
}
