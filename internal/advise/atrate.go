package advise

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
)

// A point is one open-loop rate a run held: a rate run, a step of a rate
// ramp, or a probe of a capacity search. An SLA at a rate is judged from
// these alone: a closed loop measures what a stack carries, not its
// latency at a given rate.
type point struct {
	rate, achieved float64
	latencyUs      float64 // at the asked percentile; -1 when the run kept no figure for it
	failed         bool    // calls failed beyond the bound, or the rate was not kept
	lowerBound     bool    // a capacity search's capacity that was only a lower bound
}

// meets reports whether the point carried its rate within the SLA.
func (p point) meets(slaUs float64) bool {
	return !p.failed && p.latencyUs >= 0 && p.latencyUs <= slaUs
}

// Bounds a point is held to, as the capacity search holds its probes.
const (
	maxFailedShare = 0.001
	keptShare      = 0.97
)

// pointsOf reads a record's open-loop points at percentile p.
func pointsOf(r *results.Record, p float64) []point {
	switch {
	case r.Capacity != nil:
		var out []point
		for i, st := range r.Steps {
			failed := st.Errors - st.ErrorsByClass["over_sla"]
			pt := stepPoint(st, p, failed)
			if r.Capacity.Percentile == p {
				pt.latencyUs = float64(st.PercentileUs)
			}
			sent := float64(st.Requests + st.Unanswered)
			pt.failed = pt.failed || float64(st.Unanswered) > (1-p/100)*sent
			pt.lowerBound = r.Capacity.LowerBound && i == r.Capacity.Step
			out = append(out, pt)
		}
		return out
	case strings.HasPrefix(r.Load, "ramp:rate:"):
		var out []point
		for _, st := range r.Steps {
			out = append(out, stepPoint(st, p, st.Errors))
		}
		return out
	case strings.HasPrefix(r.Load, "rate:"):
		var rate float64
		if _, err := fmt.Sscanf(r.Load, "rate:%g", &rate); err != nil || rate <= 0 {
			return nil
		}
		failed := r.Errors - r.ErrorsByClass["over_sla"]
		pt := point{rate: rate, achieved: r.RPS, latencyUs: -1}
		pt.failed = float64(failed) > maxFailedShare*float64(max(r.Requests, 1)) || r.RPS < keptShare*rate
		if h, err := stats.Decode(r.Histogram); err == nil && h.TotalCount() > 0 {
			pt.latencyUs = float64(h.ValueAtQuantile(p))
		}
		return []point{pt}
	}
	return nil
}

// stepPoint reads a ramp step or capacity probe whose failed calls are
// failed.
func stepPoint(st load.Step, p float64, failed int64) point {
	pt := point{rate: st.Value, achieved: st.RPS, latencyUs: -1}
	pt.failed = float64(failed) > maxFailedShare*float64(max(st.Requests, 1)) || st.RPS < keptShare*st.Value
	l := st.Latency
	for _, q := range []struct {
		p  float64
		us int64
	}{{50, l.P50Us}, {90, l.P90Us}, {99, l.P99Us}, {99.9, l.P999Us}} {
		if q.p == p && l.Count > 0 {
			pt.latencyUs = float64(q.us)
		}
	}
	return pt
}

// atRate is what a stack's open-loop runs say about an SLA at a rate.
type atRate struct {
	// capacity is the highest rate a run held within the SLA (the median
	// over a case's repetitions, the best case); lowerBound when that
	// run's search stopped before the stack failed.
	capacity   float64
	lowerBound bool
	// at is the point nearest the asked rate at or above it, if any
	// met it; failedBelow is true when a run failed the SLA at or below
	// the asked rate (so the stack was measured not to carry it).
	at          *point
	failedBelow bool
	from        *candidate
	measured    bool // any open-loop point at all
}

// judgeAtRate reads every open-loop point of a stack's cases against the
// rate and SLA asked for.
func judgeAtRate(req Requirements, cases []*candidate) atRate {
	slaUs := float64(req.SLA.Microseconds())
	var a atRate
	for _, c := range cases {
		var caps []float64
		lower := false
		for _, r := range c.recs {
			best := 0.0
			for _, pt := range pointsOf(r, req.Percentile) {
				a.measured = true
				if !pt.meets(slaUs) {
					a.failedBelow = a.failedBelow || pt.rate <= req.Rate && pt.latencyUs >= 0
					continue
				}
				if pt.rate > best {
					best, lower = pt.rate, pt.lowerBound
				}
				if pt.rate >= req.Rate && (a.at == nil || pt.rate < a.at.rate) {
					p := pt
					a.at = &p
				}
			}
			caps = append(caps, best)
		}
		if med := results.SpreadOf(caps).Median; med > a.capacity {
			a.capacity, a.lowerBound, a.from = med, lower, c
		}
	}
	return a
}

// rateEvidence writes what atRate found into s.
func (a atRate) rateEvidence(req Requirements, s *Stack) {
	p := "p" + pct(req.Percentile)
	bound := ""
	if a.lowerBound {
		bound = "≥ "
	}
	switch {
	case !a.measured:
		s.NotMeasured = true
		s.Unmet = append(s.Unmet, fmt.Sprintf("latency at %.0f req/s: not measured (only closed-loop runs, which measure throughput, not the latency at a rate)", req.Rate))
	case a.at == nil && a.failedBelow:
		s.Unmet = append(s.Unmet, fmt.Sprintf("rate at the SLA: %s within %s up to %s%.0f req/s at most, short of the %.0f req/s needed", p, req.SLA, bound, a.capacity, req.Rate))
	case a.at == nil:
		s.NotMeasured = true
		s.Unmet = append(s.Unmet, fmt.Sprintf("latency at %.0f req/s: not measured (open-loop runs reached %s%.0f req/s within the SLA, none went as high)", req.Rate, bound, a.capacity))
	default:
		s.LatencyUs = a.at.latencyUs
		s.Headroom = a.capacity / req.Rate
		s.Evidence = append(s.Evidence, fmt.Sprintf("%s %s at %.0f req/s, open loop", p, msStr(a.at.latencyUs), a.at.rate))
	}
	if a.from != nil && a.capacity > 0 {
		s.Evidence = append(s.Evidence, fmt.Sprintf("capacity at %s ≤ %s: %s%.0f req/s (%s, %s), headroom %s×%.1f over the %.0f req/s asked",
			p, req.SLA, bound, a.capacity, a.from.row.Load, plural(a.from.row.Reps, "repetition"), bound, a.capacity/req.Rate, req.Rate))
	}
}

// measureCommand is the command that measures what advice is missing.
func measureCommand(req Requirements, stacks []string) string {
	args := []string{"hopbench advise", "--model " + req.Model, fmt.Sprintf("--count %d", req.Count),
		fmt.Sprintf("--rate %.0f", req.Rate), "--sla " + req.SLA.String()}
	if req.Percentile != 99 {
		args = append(args, "--percentile "+pct(req.Percentile))
	}
	if req.Topology != "direct" {
		args = append(args, "--topology "+req.Topology)
	}
	if len(stacks) > 0 {
		args = append(args, "--stacks "+strings.Join(slices.Sorted(slices.Values(stacks)), ","))
	}
	return strings.Join(append(args, "--measure"), " ")
}
