// Package reproduce sets a published study's findings beside what
// hopbench measured: for each finding, the ratio the study published and
// the same ratio computed from the records (and codec timings) of a
// reproduction, and whether the direction the study claims holds here.
package reproduce

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hopbench/hopbench/internal/codecbench"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
	"github.com/hopbench/hopbench/internal/transport"
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

// Value is one side of a ratio as measured here.
type Value struct {
	V    float64
	Unit string
	// Of names what was measured: the case, or the codec and payload.
	Of string
	// Runs are the completed runs' values V is the median of; none for
	// codec timings and binary sizes.
	Runs []float64
	// Stack is the contender, in a ranking.
	Stack string
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

// Measures are what a finding's here may name, each with its unit.
var Measures = map[string]string{
	"p50": "ms", "mean": "ms", "rps": "req/s", "delivered_rps": "msg/s", "good_rps": "req/s", "last_step_rps": "req/s", "server_ms": "ms", "decode_ms": "ms", "boot_ms": "ms", "floor": "ms",
	"request_wire_bytes": "B", "response_wire_bytes": "B", "wire_bytes": "B", "response_body_bytes": "B", "request_body_bytes": "B",
	"rss": "MiB", "anon_rss": "MiB", "broker_anon_rss": "MiB", "completed": "runs",
	MeasureHeapUsed: "MiB", MeasureHeapCommitted: "MiB",
	"marshal_ns": "ns", "unmarshal_ns": "ns", "encoded_bytes": "B",
	"binary_added_bytes": "B",
	"proxy_cpu":          "µs/req",
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
		if !figureOf(&r, measure) {
			continue
		}
		v, err := recordValue(&r, measure)
		if err != nil {
			return Value{}, fmt.Errorf("%s: %w", of, err)
		}
		vs = append(vs, v)
	}
	if len(vs) == 0 {
		return Value{}, fmt.Errorf("%s: no run completed without errors (%s: %s%s)", of, recs[0].Outcome, recs[0].Reason, errorText(recs[0]))
	}
	return Value{V: results.SpreadOf(vs).Median, Unit: unit, Of: of, Runs: vs}, nil
}

// figureOf says whether a run gives measure a figure of its case: it must
// have completed, and a run whose calls failed gives none, but for the
// measures that count failed calls as part of what they measure, and for
// those only while some call succeeded (goodput's 0 excepted).
func figureOf(r *results.Record, measure string) bool {
	switch {
	case heapMeasure(measure):
		return r.Completed() || r.Outcome == results.OutcomeOutOfMemory
	case !r.Completed():
		return false
	case r.Errors == 0:
		return true
	case !errorsCounted(measure):
		return false
	}
	return r.Errors < r.Requests || measure == "good_rps" || measure == MeasureClientLimit
}

// errorsCounted says whether a measure counts a run's failed calls as
// part of what it measures (goodput does, and the requests a ramp's last
// step carried, late ones included; a latency does not).
func errorsCounted(measure string) bool {
	return measure == "good_rps" || measure == "last_step_rps" || measure == MeasureClientLimit || strings.HasSuffix(measure, "_bytes") || measure == "rss" || measure == "anon_rss" || measure == "boot_ms"
}

func errorText(r results.Record) string {
	if r.Errors == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d calls failed: %v", r.Errors, r.Requests, r.ErrorsByClass)
}

// recordValue is the figure a finding's measure reads from one record.
func recordValue(r *results.Record, measure string) (float64, error) {
	switch measure {
	case "good_rps":
		return r.GoodRPS, nil
	case "last_step_rps":
		return lastStepRPS(r)
	case MeasureClientLimit:
		return clientLimit(r)
	case MeasureEarlyFluctuation:
		return earlyFluctuation(r)
	case "response_body_bytes":
		if r.ResponseBodyBytes == 0 {
			return 0, fmt.Errorf("no reply body size recorded (a record from before hopbench kept it: run again)")
		}
		return float64(r.ResponseBodyBytes), nil
	case "request_body_bytes":
		return float64(r.RequestBodyBytes), nil
	case "decode_ms":
		ph, err := entryPhases(r)
		return ph["decode"].MeanUs / 1000, err
	case "p50":
		return float64(r.P50Us) / 1000, nil
	case "mean":
		return r.MeanUs / 1000, nil
	case "rps":
		return r.RPS, nil
	case "delivered_rps":
		return deliveredRPS(r)
	case "floor":
		if r.Calibration == nil {
			return 0, fmt.Errorf("run without calibration (run without --no-calibrate)")
		}
		return r.Calibration.HTTPRoundTripUs / 1000, nil
	case "rss":
		return peakRSSMiB(r), nil
	case "anon_rss":
		return anonRSSMiB(r)
	case "broker_anon_rss":
		return brokerAnonRSSMiB(r)
	case "boot_ms":
		return meanBootMs(r)
	case MeasureHeapUsed, MeasureHeapCommitted:
		return heapPeakMiB(r, measure)
	case "server_ms":
		return entryServerMs(r)
	case "proxy_cpu":
		return proxyCPU(r)
	}
	return wireBytes(r, measure)
}

// proxyCPU is the CPU of every proxy on the run's hops, µs per request.
func proxyCPU(r *results.Record) (float64, error) {
	t := r.ProxyTotals()
	if t.N == 0 {
		return 0, fmt.Errorf("no proxies recorded: a run without proxy")
	}
	return t.CPUUsPerReq, nil
}

// lastStepRPS is the replies per second the last step of a ramp got, late
// ones included: a call that failed otherwise carried nothing. Steps count
// errors of every class together, so only a run whose errors were all late
// says.
func lastStepRPS(r *results.Record) (float64, error) {
	if len(r.Steps) == 0 {
		return 0, fmt.Errorf("not a ramp: no steps recorded")
	}
	if r.Errors != r.ErrorsByClass["over_sla"] {
		return 0, fmt.Errorf("calls failed other than by arriving late (%v): the last step's replies cannot be told from its failures", r.ErrorsByClass)
	}
	return r.Steps[len(r.Steps)-1].RPS, nil
}

// peakRSSMiB is the largest peak RSS of the run's nodes, in MiB.
func peakRSSMiB(r *results.Record) float64 {
	var peak int64
	for _, n := range r.Nodes {
		peak = max(peak, n.PeakRSS)
	}
	return float64(peak) / (1 << 20)
}

// anonRSSMiB is the largest anonymous RSS of the run's services, in MiB.
func anonRSSMiB(r *results.Record) (float64, error) {
	_, _, largest := r.Services()
	if largest == 0 {
		return 0, fmt.Errorf("no anonymous RSS recorded (a record from before hopbench kept it: run again)")
	}
	return float64(largest) / (1 << 20), nil
}

// brokerAnonRSSMiB is the anonymous RSS of the run's broker at the end of
// its window, in MiB: the memory it allocated, its mapped binary and
// libraries left out (nats' broker is a hopbench process embedding
// nats-server, whose binary is most of its RSS).
func brokerAnonRSSMiB(r *results.Record) (float64, error) {
	if len(r.Brokers) == 0 || r.Brokers[0].AnonRSS == 0 {
		return 0, fmt.Errorf("no broker's anonymous RSS recorded (a broker hopbench found running elsewhere, or a stack without one)")
	}
	return float64(r.Brokers[0].AnonRSS) / (1 << 20), nil
}

// meanBootMs is the run's nodes' mean boot time.
func meanBootMs(r *results.Record) (float64, error) {
	if len(r.Nodes) == 0 {
		return 0, fmt.Errorf("no nodes recorded")
	}
	var sum float64
	for _, n := range r.Nodes {
		sum += n.BootMs
	}
	return sum / float64(len(r.Nodes)), nil
}

// wireBytes is the bytes on the wire per request the measure names:
// request_wire_bytes, response_wire_bytes, or both ways (wire_bytes).
func wireBytes(r *results.Record, measure string) (float64, error) {
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

// entryServerMs is the entry service's own time per request, mean: from
// reading the request to writing the reply, less its wait on the services
// it calls (their calls' encoding and decoding included), as a study's
// "request processing time" of one service is.
func entryServerMs(r *results.Record) (float64, error) {
	ph, err := entryPhases(r)
	if err != nil {
		return 0, err
	}
	total, ok := ph["total"]
	if !ok {
		return 0, fmt.Errorf("entry node reported no total phase")
	}
	return (total.MeanUs - ph["downstream"].MeanUs) / 1000, nil
}

// entryPhases is the entry node's own report of its phases.
func entryPhases(r *results.Record) (map[string]stats.Summary, error) {
	for _, n := range r.Nodes {
		if n.Index != 0 {
			continue
		}
		if n.Stats == nil {
			return nil, fmt.Errorf("the entry node's stats were not recorded (%s)", n.StatsError)
		}
		return n.Stats.Phases, nil
	}
	return nil, fmt.Errorf("no entry node recorded")
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

// matches says whether a run is one a selector picks; a selector without
// a runtime picks Go's runs.
func matches(r *results.Record, sel map[string]string) bool {
	if cmp.Or(sel["runtime"], "go") != r.RuntimeName() {
		return false
	}
	sw := switchesOf(r)
	for k, v := range sel {
		var got string
		switch k {
		case "measure", "runtime":
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
		case "generator":
			got = cmp.Or(sw.Generator, "hopbench")
		case "proxy":
			got = results.ProxyOf(r.Options)
		case "tls", "cache", "h2", "mtls", "per-request":
			got = strconv.FormatBool(sw.on(k))
		default:
			return false
		}
		if got != v {
			return false
		}
	}
	return true
}

// switches are a run's on/off settings, read from its recorded config
// (structured, as the experiment expanded it); a record without one (an
// older record) has them read from its options' words instead.
type switches struct {
	TLS, MTLS, HTTP2, Cache bool
	PerRequest              bool `json:"per_request"`
	Generator               string
}

func switchesOf(r *results.Record) switches {
	var sw switches
	if len(r.Config) > 0 && json.Unmarshal(r.Config, &sw) == nil {
		return sw
	}
	words := strings.Fields(r.Options)
	has := func(w string) bool { return slices.Contains(words, w) }
	sw = switches{TLS: has("tls") || has("mtls"), MTLS: has("mtls"), HTTP2: has("h2"), Cache: has("cache"), PerRequest: has("per-request")}
	if has("independent") {
		sw.Generator = "independent"
	}
	return sw
}

// on reads the switch a finding's selector names.
func (sw switches) on(name string) bool {
	return map[string]bool{"tls": sw.TLS, "mtls": sw.MTLS, "h2": sw.HTTP2, "cache": sw.Cache, "per-request": sw.PerRequest}[name]
}

func (m Measured) codecValue(measure, unit string, sel map[string]string) (Value, error) {
	var found []codecbench.Record
	for _, c := range m.Codecs {
		ok := cmp.Or(sel["runtime"], "go") == cmp.Or(c.Runtime, "go") // Go's timings unless the JVM's are asked
		for k, v := range sel {
			switch k {
			case "runtime":
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
	// Runs are independent runs only: processes (Go) or JMH forks. A
	// timing of one process or fork has its samples, taken back to back,
	// which are not runs: it decides nothing (fewer than MinRuns).
	runs := map[string][]float64{"marshal_ns": c.MarshalRunsNs, "unmarshal_ns": c.UnmarshalRunsNs}[measure]
	kind := "processes"
	if c.Runtime != "" {
		kind = "JMH forks"
	}
	of := fmt.Sprintf("%s+%s %s×%d, %d %s", c.Codec, c.Compress, c.Model, c.Count, len(runs), kind)
	if c.Runtime != "" {
		of = fmt.Sprintf("%s %s×%d on the %s, %s, %d %s", c.Codec, c.Model, c.Count, strings.ToUpper(c.Runtime), c.Method, len(runs), kind)
	}
	if len(runs) == 0 && timing(measure) {
		of += ": timed in one process (an older codec.json): its samples are not independent runs"
	}
	return Value{V: v, Unit: unit, Of: of, Runs: runs}, nil
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

// deliveredRPS is a one-way run's messages published a second from its
// window's first publish to the last message consumed (its drain
// included): a batch's messages over its completion time.
func deliveredRPS(r *results.Record) (float64, error) {
	o := r.OneWay
	if o == nil {
		return 0, fmt.Errorf("not a one-way run (mode oneway)")
	}
	if !o.Drained {
		return 0, fmt.Errorf("its consumers had not taken every message when the wait ended")
	}
	return float64(r.Requests) / (r.ElapsedS + o.DrainMs/1000), nil
}
