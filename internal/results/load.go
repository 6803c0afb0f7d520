package results

import (
	"fmt"
	"strconv"
	"time"

	"github.com/hopbench/hopbench/internal/stats"
)

// What a load measured beyond its figures, as records carry it: its
// seconds, its steps (a ramp's or a capacity search's probes) and a
// search's finding. The load engine fills these; they are the record's
// format, not the engine's, so they live here.

// ClassOverSLA is the error class of a good reply later than the SLA: not
// a failed call.
const ClassOverSLA = "over_sla"

// MinProbeRate is the lowest rate a capacity search probes (req/s).
const MinProbeRate = 1

// Second is one second of the measured window, by completion time.
type Second struct {
	T        int   `json:"t"` // seconds since the window began
	Requests int64 `json:"requests"`
	Errors   int64 `json:"errors"`
	P50Us    int64 `json:"p50_us"`
	P99Us    int64 `json:"p99_us"`
	// Late counts requests that reported after the second was closed
	// (a call blocked for seconds); they are in the counts, not the
	// percentiles.
	Late int64 `json:"late,omitempty"`
}

// Step is one step of a ramp, or one probe of a capacity search.
type Step struct {
	Value    float64 `json:"value"` // clients or rate in force (intended)
	Requests int64   `json:"requests"`
	Errors   int64   `json:"errors"`
	// RPS is a ramp step's replies per second (failed calls not counted),
	// to the requests sent in the step, whenever the replies came.
	RPS float64 `json:"rps"`
	// GoodRPS is the step's replies within the SLA per second.
	GoodRPS float64 `json:"good_rps"`
	// WithinSLA is the share of requests that succeeded within the SLA.
	WithinSLA float64       `json:"within_sla"`
	Latency   stats.Summary `json:"latency"`
	// A capacity probe's RPS is the rate achieved: calls sent within its
	// window, per second. Unanswered counts calls sent that had no reply
	// by the probe's drain deadline. Then its errors by class, latency
	// from the actual send time, latency at the search's percentile,
	// generator's CPU (cores) and verdict (Probe*).
	Unanswered     int64            `json:"unanswered,omitempty"`
	ErrorsByClass  map[string]int64 `json:"errors_by_class,omitempty"`
	Uncorrected    *stats.Summary   `json:"uncorrected,omitempty"`
	PercentileUs   int64            `json:"percentile_us,omitempty"`
	ClientCPUCores float64          `json:"client_cpu_cores,omitempty"`
	Probe          string           `json:"probe,omitempty"`
	// Retry marks a probe of a rate that had just failed; Transient, on a
	// failed probe whose retry passed, says what failed it once (errors,
	// lateness, the generator's own stall).
	Retry     bool   `json:"retry,omitempty"`
	Transient string `json:"transient,omitempty"`
}

// Failed counts the step's calls that got no good reply: every error but
// a reply later than the SLA.
func (s Step) Failed() int64 { return s.Errors - s.ErrorsByClass[ClassOverSLA] }

// SearchResult is what a capacity search found.
type SearchResult struct {
	// RPS is the highest rate probed that met the SLA: capacity_rps. Zero
	// when no rate down to 1 req/s met it.
	RPS float64 `json:"rps"`
	// Above is the lowest rate probed that the service failed (zero when it
	// failed none): the capacity lies between RPS and Above.
	Above float64 `json:"above,omitempty"`
	// LowerBound is true when the search stopped before the service failed
	// a rate (the generator could not keep up, the time budget or max_rate
	// ran out): the service carries at least RPS.
	LowerBound bool `json:"lower_bound,omitempty"`
	// CutShort is true when the search stopped (its budget, the generator,
	// an interruption) with RPS and Above further apart than its
	// resolution: the capacity lies somewhere between them.
	CutShort bool `json:"cut_short,omitempty"`
	// Ended says why the search stopped.
	Ended      string  `json:"ended"`
	Percentile float64 `json:"percentile"`
	SLAUs      int64   `json:"sla_us"`
	MaxErrors  float64 `json:"max_errors"`
	// Step is the index in Result.Steps of the probe at RPS (-1 for none).
	Step int `json:"step"`
	// Confirmed counts the failed rates that failed again when probed a
	// second time, after a settle: only those bound the search.
	// Transients counts those that passed the second time: one stall,
	// not the service's limit (the failed probe's Transient says what).
	Confirmed  int `json:"confirmed,omitempty"`
	Transients int `json:"transients,omitempty"`
}

// String reads the capacity as tables show it: "12800", "≥ 12800" for a
// lower bound, "< 125" when no rate met the SLA down to 125 req/s before
// the search stopped, "none" when none did down to 1 req/s.
func (c *SearchResult) String() string {
	switch {
	case c == nil:
		return ""
	case c.RPS == 0 && c.LowerBound:
		return "unknown"
	case c.RPS == 0 && c.Above >= 2*MinProbeRate:
		return fmt.Sprintf("< %.0f", c.Above)
	case c.RPS == 0:
		return "none"
	case c.CutShort && c.Above > 0:
		return fmt.Sprintf("%.0f–%.0f", c.RPS, c.Above)
	case c.LowerBound:
		return fmt.Sprintf("≥ %.0f", c.RPS)
	}
	return fmt.Sprintf("%.0f", c.RPS)
}

// Describe reads the capacity with its SLA and why the search ended:
// "12800 req/s at p99 ≤ 10ms (bracketed: ...)".
func (c *SearchResult) Describe() string {
	d := fmt.Sprintf("%s req/s at p%s ≤ %s (%s)", c, strconv.FormatFloat(c.Percentile, 'f', -1, 64), time.Duration(c.SLAUs)*time.Microsecond, c.Ended)
	if c.Confirmed > 0 || c.Transients > 0 {
		d += fmt.Sprintf("; failed rates confirmed by a second probe: %d, transients (failed once, then passed): %d", c.Confirmed, c.Transients)
	}
	return d
}

// Probe verdicts, kept in Step.Probe.
const (
	ProbeWithin    = "within"    // met the SLA, errors under the bound, rate kept
	ProbeOverSLA   = "over_sla"  // the percentile was over the SLA
	ProbeErrors    = "errors"    // more calls failed than the bound allows
	ProbeShort     = "short"     // the service fell behind the rate
	ProbeGenerator = "generator" // the generator could not keep the rate; the service was within its SLA
)
