package advise

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
)

// A point is one open-loop rate a run held: a rate run, a step of a rate
// ramp, or a probe of a capacity search. An SLA at a rate is judged from
// these alone: a closed loop measures what a stack carries, not its
// latency at a given rate.
type point struct {
	rate       float64
	latencyUs  float64 // at the asked percentile; -1 when the run kept no figure for it
	failed     bool    // calls failed beyond the bound, or the rate was not kept
	lowerBound bool    // a capacity search's capacity that was only a lower bound
}

// meets reports whether the point carried its rate within the SLA.
func (p point) meets(slaUs float64) bool {
	return !p.failed && p.latencyUs >= 0 && p.latencyUs <= slaUs
}

// Bounds a point is held to, as the capacity search holds its probes.
const (
	maxFailedShare = results.MaxFailedShare
	keptShare      = 0.97
)

// pointsOf reads a record's open-loop points at percentile p.
func pointsOf(r *results.Record, p float64) []point {
	switch {
	case r.Capacity != nil:
		var out []point
		for i, st := range r.Steps {
			if st.Probe == results.ProbeGenerator || st.Transient != "" {
				continue // the generator's limit, or a failure its second probe undid: not the stack's
			}
			pt := stepPoint(st, p, st.Failed())
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
		pt := point{rate: rate, latencyUs: -1}
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
func stepPoint(st results.Step, p float64, failed int64) point {
	pt := point{rate: st.Value, latencyUs: -1}
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

// atRate is what a stack's open-loop runs say about an SLA at a rate,
// read from its best case.
type atRate struct {
	// capacity is the highest rate a run held within the SLA, the median
	// over the case's repetitions; lowerBound when the run at that median
	// was a search stopped before the stack failed.
	capacity   float64
	lowerBound bool
	// at is the case's point nearest the asked rate at or above it that
	// met the SLA, for its latency there.
	at       *point
	from     *candidate
	measured bool // any open-loop point at all
	// below is true when some run probed the asked rate or less.
	below bool
}

// fits reports whether the best case held the asked rate within the SLA.
func (a atRate) fits(rate float64) bool { return a.at != nil && a.capacity >= rate }

// judgeAtRate reads every open-loop point of a stack's cases against the
// rate and SLA asked for, each case by the median of its repetitions.
func judgeAtRate(req Requirements, cases []*candidate) atRate {
	slaUs := float64(req.SLA.Microseconds())
	var a atRate
	for _, c := range cases {
		type rep struct {
			best  float64
			lower bool
		}
		var reps []rep
		var at *point
		for _, r := range c.recs {
			var x rep
			for _, pt := range pointsOf(r, req.Percentile) {
				a.measured = true
				a.below = a.below || pt.rate <= req.Rate
				if !pt.meets(slaUs) {
					continue
				}
				if pt.rate > x.best {
					x = rep{pt.rate, pt.lowerBound}
				}
				if pt.rate >= req.Rate && (at == nil || pt.rate < at.rate) {
					p := pt
					at = &p
				}
			}
			reps = append(reps, x)
		}
		if len(reps) == 0 {
			continue
		}
		slices.SortFunc(reps, func(x, y rep) int { return cmp.Compare(x.best, y.best) })
		mid := reps[len(reps)/2]
		med := mid.best
		lower := mid.lower
		if len(reps)%2 == 0 {
			lo := reps[len(reps)/2-1]
			med, lower = (lo.best+mid.best)/2, lo.lower || mid.lower
		}
		if med > a.capacity || a.from == nil {
			a.capacity, a.lowerBound, a.from, a.at = med, lower, c, at
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
	case a.fits(req.Rate):
		s.LatencyUs = a.at.latencyUs
		s.Headroom = a.capacity / req.Rate
		s.Evidence = append(s.Evidence, fmt.Sprintf("%s %s at %.0f req/s, open loop (%s)", p, msStr(a.at.latencyUs), a.at.rate, a.from.row.Load))
	case a.lowerBound:
		s.NotMeasured = true
		s.Unmet = append(s.Unmet, fmt.Sprintf("latency at %.0f req/s: not measured (runs held ≥ %.0f req/s within the SLA and stopped before failing it: the generator's limit, or the search's budget or max_rate)", req.Rate, a.capacity))
	case a.below || a.capacity > 0:
		s.Unmet = append(s.Unmet, fmt.Sprintf("rate at the SLA: %s within %s up to %s%.0f req/s (median of the runs), short of the %.0f req/s needed", p, req.SLA, bound, a.capacity, req.Rate))
	default:
		s.NotMeasured = true
		s.Unmet = append(s.Unmet, fmt.Sprintf("latency at %.0f req/s: not measured (open-loop runs failed the SLA at higher rates and none ran at or below it)", req.Rate))
	}
	if a.from != nil && a.capacity > 0 {
		s.Evidence = append(s.Evidence, fmt.Sprintf("capacity at %s ≤ %s: %s%.0f req/s (%s, %s), headroom %s×%.1f over the %.0f req/s asked",
			p, req.SLA, bound, a.capacity, a.from.row.Load, plural(a.from.row.Reps, "repetition"), bound, a.capacity/req.Rate, req.Rate))
	}
}

// measureCommand is the command that measures what advice is missing.
func measureCommand(req Requirements, stacks []string) string {
	args := []string{"hopbench advise", "--model " + req.Model, fmt.Sprintf("--count %d", req.Count), fmt.Sprintf("--rate %.0f", req.Rate)}
	if req.SLA > 0 {
		args = append(args, "--sla "+req.SLA.String())
	}
	if req.Feed > 0 {
		args = append(args, fmt.Sprintf("--feed %d", req.Feed))
	}
	if req.FirstMessageSLA > 0 {
		args = append(args, "--first-message-sla "+req.FirstMessageSLA.String())
	}
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
