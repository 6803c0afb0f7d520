package load

import (
	"errors"
	"fmt"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
)

// Record writes what the window measured into rec, as hopbench run and
// hopbench load both record it: the figures, the bodies' sizes, the
// series and steps and the encoded histograms (corrected, uncorrected,
// first message). A histogram that does not encode is an error, not a
// record that silently lacks it.
func (got Measured) Record(rec *results.Record) error {
	res := got.Result
	rec.Figures = res.Figures(got.Wire)
	rec.RequestBodyBytes, rec.RequestBodyRawBytes, rec.ResponseBodyBytes = got.RequestBytes, got.RawRequestBytes, got.ReplyBytes
	rec.Series, rec.Steps = res.Series, res.Steps
	var errs []error
	for _, h := range []struct {
		into *string
		from *hdrhistogram.Histogram
		what string
	}{
		{&rec.Histogram, res.Latency, "latency"},
		{&rec.UncorrectedHistogram, res.Uncorrected, "uncorrected latency"},
		{&rec.FirstMessageHistogram, res.FirstMessage, "first messages'"},
	} {
		if h.from == nil {
			continue
		}
		var err error
		if *h.into, err = stats.Encode(h.from); err != nil {
			errs = append(errs, fmt.Errorf("encoding the %s histogram: %w", h.what, err))
		}
	}
	return errors.Join(errs...)
}

// Judge is the outcome of what the generator measured, when nothing cut
// the run short, by the rules hopbench run and hopbench load share: a
// capacity search by its probe at the capacity; a run whose calls failed
// loses its latency and throughput figures (none stands for the service);
// calls that failed, or requests never sent, make errors.
func (r *Result) Judge(rec *results.Record) (outcome, reason string) {
	if r.Capacity != nil {
		return r.capacityOutcome()
	}
	if why := r.CallsFailed(); why != "" {
		rec.Figures.Withhold()
		rec.Histogram, rec.UncorrectedHistogram, rec.FirstMessageHistogram, rec.Series, rec.Steps = "", "", "", nil, nil
		return results.OutcomeCallsFailed, why
	}
	switch {
	case r.NotSent > 0:
		return results.OutcomeErrors, fmt.Sprintf("the generator never sent %d requests due in the window (it fell that far behind the rate)", r.NotSent)
	case r.Errors > 0:
		return results.OutcomeErrors, ""
	}
	return results.OutcomeOK, ""
}

// capacityOutcome judges a capacity search by its probe at the capacity:
// the probes above it fail by design, and replies over the SLA at the
// capacity are the tail its percentile allows; calls that failed there
// are errors.
func (r *Result) capacityOutcome() (string, string) {
	c := r.Capacity
	if c.Step < 0 {
		return results.OutcomeErrors, "no capacity: " + c.Ended
	}
	if r.Steps[c.Step].Failed() > 0 {
		return results.OutcomeErrors, ""
	}
	return results.OutcomeOK, ""
}
