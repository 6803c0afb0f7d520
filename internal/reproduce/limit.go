package reproduce

import (
	"fmt"

	"github.com/hopbench/hopbench/internal/results"
)

// MeasureClientLimit is a ramp's client limit, read as five-tech reads
// its ramps: the clients past which replies no longer arrive within the
// SLA.
const MeasureClientLimit = "client_limit"

func init() { Measures[MeasureClientLimit] = "clients" }

// limitShare is the share of a step's requests answered within the SLA
// below which the step is past the limit: most replies no longer arrive
// in time.
const limitShare = 0.5

// clientLimit is the clients at which a ramp's share of requests answered
// within the SLA first falls below half, interpolated linearly between
// the last step at or above half and the first below it (from none
// missed at no clients, when the first step is already below). A ramp
// that never falls below half has its limit at or past its last step,
// and says its last step: a lower bound. Calls that failed other than by
// arriving late (or not at all) leave the limit unread: a refused call is
// the service's failure, not its load's.
func clientLimit(r *results.Record) (float64, error) {
	if len(r.Steps) == 0 {
		return 0, fmt.Errorf("not a ramp: no steps recorded")
	}
	if late := r.ErrorsByClass["over_sla"] + r.ErrorsByClass["timeout"]; r.Errors != late {
		return 0, fmt.Errorf("calls failed other than by arriving late (%v): the client limit is read from late replies alone", r.ErrorsByClass)
	}
	limit, _ := limitOf(r.Steps)
	return limit, nil
}

// limitOf is clientLimit's reading of steps, and whether the ramp passed
// its limit (false: the limit is its last step, a lower bound).
func limitOf(steps []results.Step) (limit float64, passed bool) {
	prevClients, prevShare := 0.0, 1.0
	for _, s := range steps {
		if s.Requests == 0 {
			continue
		}
		if s.WithinSLA < limitShare {
			return prevClients + (s.Value-prevClients)*(prevShare-limitShare)/(prevShare-s.WithinSLA), true
		}
		prevClients, prevShare = s.Value, s.WithinSLA
	}
	return steps[len(steps)-1].Value, false
}

// limitBound says what sel's runs that never passed their limit mean
// for a claim of one: such a run gives its last step, a lower bound,
// which says the limit lies above the claim only when that step is above
// the claim's band already (undecided is false then). It returns "" when
// every run passed its limit.
func (m Measured) limitBound(sel map[string]string, bandTop float64) (note string, undecided bool) {
	recs, err := m.pick(sel)
	if err != nil {
		return "", false
	}
	n, top := 0, 0.0
	for _, r := range recs {
		if len(r.Steps) == 0 {
			continue
		}
		if limit, passed := limitOf(r.Steps); !passed {
			n, top = n+1, max(top, limit)
		}
	}
	switch {
	case n == 0:
		return "", false
	case top > bandTop:
		return fmt.Sprintf("%d of %d runs never passed their limit up to %g clients, the ramp's last step: their figure is a lower bound, above the band", n, len(recs), top), false
	}
	return fmt.Sprintf("%d of %d runs never passed their limit up to %g clients, the ramp's last step: the limit lies above it, and the band reaches past it; a ramp to more clients (five-tech --scale ramp) would decide", n, len(recs), top), true
}
