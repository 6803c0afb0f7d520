package load

import (
	"errors"
	"fmt"
	"maps"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/hopbench/hopbench/internal/stats"
)

// Merge is one load run as shares from several generators at once: counts
// add and histograms merge (one geometry everywhere, so exactly: a merged
// percentile is the percentile of every request), the window is the
// longest share's and client CPU is the shares' sum. Per-second series
// are left out: a second's percentiles cannot be made from the shares'. Ramps and capacity
// searches are not split: Merge refuses them.
func Merge(shares []*Result) (*Result, error) {
	switch len(shares) {
	case 0:
		return nil, errors.New("load: no share to merge")
	case 1:
		return shares[0], nil
	}
	out := &Result{ErrorsByClass: map[string]int64{}}
	for i, s := range shares {
		if s == nil || s.Latency == nil {
			return nil, fmt.Errorf("load: share %d has no latency histogram", i)
		}
		if s.Capacity != nil || len(s.Steps) > 0 {
			return nil, fmt.Errorf("load: share %d is a ramp or a capacity search, which are not split across generators", i)
		}
		if err := out.add(s); err != nil {
			return nil, fmt.Errorf("load: share %d: %w", i, err)
		}
	}
	return out, nil
}

func (r *Result) add(s *Result) error {
	r.Requests += s.Requests
	r.Errors += s.Errors
	r.Good += s.Good
	r.NotSent += s.NotSent
	r.Sent += s.Sent
	r.SentOnTime += s.SentOnTime
	r.ClientCPU += s.ClientCPU
	r.Elapsed = max(r.Elapsed, s.Elapsed)
	r.Messages += s.Messages
	for class, n := range maps.All(s.ErrorsByClass) {
		r.ErrorsByClass[class] += n
	}
	var err error
	if r.Latency, err = mergeHistogram(r.Latency, s.Latency); err != nil {
		return err
	}
	if s.Uncorrected != nil {
		if r.Uncorrected, err = mergeHistogram(r.Uncorrected, s.Uncorrected); err != nil {
			return err
		}
	}
	if s.Lateness != nil {
		if r.Lateness, err = mergeHistogram(r.Lateness, s.Lateness); err != nil {
			return err
		}
	}
	if s.FirstMessage != nil {
		if r.FirstMessage, err = mergeHistogram(r.FirstMessage, s.FirstMessage); err != nil {
			return err
		}
	}
	return nil
}

func mergeHistogram(into, h *hdrhistogram.Histogram) (*hdrhistogram.Histogram, error) {
	if into == nil {
		into = stats.NewHistogram()
	}
	if dropped := into.Merge(h); dropped > 0 {
		return nil, fmt.Errorf("%d values fell outside the histogram's range in merging", dropped)
	}
	return into, nil
}
