package metrics

import (
	"time"

	"github.com/hopbench/hopbench/internal/load"
)

// Run feeds one run's seconds into its case's series. A nil *Run (no
// exporter) takes nothing, and its Feed is nil, so that the engine counts
// nothing for it.
type Run struct {
	b *board
	s *series
	c Case
	// requests counts this run's requests, for the progress of a run
	// ended by a request count.
	requests int64
}

// Feed is r's tick handler, for load.Config.Live; nil for a nil r.
func (r *Run) Feed() func(load.Tick) {
	if r == nil {
		return nil
	}
	return r.Tick
}

// Tick adds a closed second of the run, or a late tick's requests.
func (r *Run) Tick(t load.Tick) {
	b, s := r.b, r.s
	b.mu.Lock()
	defer b.mu.Unlock()
	s.requests += t.Requests
	r.requests += t.Requests
	for i, n := range t.ByClass {
		s.errors[i] += n
	}
	for i, n := range t.Latency {
		s.buckets[i] += n
	}
	s.sum += t.LatencySum
	if t.Late > 0 {
		return // counts only: nothing was sampled
	}
	s.ticked = true
	s.inFlight, s.intended = int64(t.InFlight), t.IntendedRate
	if r.whole(t.T) {
		s.achieved = float64(t.Requests)
	}
	s.progress = r.progressAt(t.T)
}

// whole says whether measured second sec lies within the window: the
// last, closed with the window, may hold only the calls that outran it.
// A window ended by a request count has no known end.
func (r *Run) whole(sec int) bool {
	return r.c.Requests > 0 || r.c.Duration <= 0 || time.Duration(sec+1)*time.Second <= r.c.Duration
}

// progressAt is the share of the run's window done when second sec
// closed, by its duration or its request count.
func (r *Run) progressAt(sec int) float64 {
	switch {
	case r.c.Requests > 0:
		return min(1, float64(r.requests)/float64(r.c.Requests))
	case r.c.Duration > 0:
		return min(1, float64(sec+1)*float64(time.Second)/float64(r.c.Duration))
	}
	return 0
}

// End ends the run: its gauges of a running load go, its progress stays,
// and the runs ended count it.
func (r *Run) End() {
	if r == nil {
		return
	}
	r.b.mu.Lock()
	defer r.b.mu.Unlock()
	r.s.running = false
	r.b.runsDone++
}

// begin opens a run of c: its series, made on first use, with the gauges
// of a run starting.
func (b *board) begin(c Case) *Run {
	s := b.open(c)
	b.mu.Lock()
	defer b.mu.Unlock()
	s.running, s.ticked = true, false
	s.inFlight, s.intended, s.achieved = 0, 0, 0
	s.progress, s.progressExported = 0, true
	return &Run{b: b, s: s, c: c}
}

// plan says how many runs the command makes in all.
func (b *board) plan(total int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.runsPlanned = int64(total)
}
