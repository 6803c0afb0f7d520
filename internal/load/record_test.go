package load

import (
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/results"
)

// However long a run, the collector holds only the last few seconds'
// histograms: memory does not grow with the run's length.
func TestTheCollectorHoldsAFewSecondsWhateverTheLength(t *testing.T) {
	var closed int
	c := newCollector(false, func(results.Second) { closed++ })
	const seconds, workers = 1000, 8
	held := 0
	for sec := range seconds {
		for range workers {
			b := newBatch(sec, -1)
			for range 10 {
				b.samples = append(b.samples, sample{latency: time.Millisecond, class: -1})
			}
			c.add(b)
		}
		held = max(held, len(c.seconds))
	}
	if held > closeLag+1 {
		t.Errorf("collector held %d open seconds at once, want at most %d", held, closeLag+1)
	}
	c.closeBefore(seconds + 1)
	if closed != seconds || len(c.series) != seconds || c.total.requests != seconds*workers*10 {
		t.Errorf("closed %d seconds, series %d, total %d requests", closed, len(c.series), c.total.requests)
	}
	// A straggler for a closed second counts, as late.
	late := newBatch(3, -1)
	late.samples = append(late.samples, sample{class: -1}, sample{class: -1})
	c.add(late)
	if c.series[3].Late != 2 || c.series[3].Requests != workers*10+2 {
		t.Errorf("late bucket: %+v", c.series[3])
	}
}

// A ramp's step counts the requests sent in it, whenever their replies
// come: one sent late in the first step and answered in the second is the
// first's, and one sent in the last step and answered after the window
// is the last's, once.
func TestARampStepCountsTheRequestsSentInIt(t *testing.T) {
	start := time.Unix(1000, 0)
	w := &window{start: start, sla: time.Hour, stepAt: func(d time.Duration) int { return min(int(d/time.Second), 1) }}
	out := make(chan *batch, 16)
	rec := &recorder{w: w, out: out}
	at := func(d time.Duration) time.Time { return start.Add(d) }
	rec.record(outcome{intended: at(100 * time.Millisecond), sent: at(100 * time.Millisecond), end: at(200 * time.Millisecond)})    // step 0
	rec.record(outcome{intended: at(900 * time.Millisecond), sent: at(900 * time.Millisecond), end: at(1500 * time.Millisecond)})   // sent in 0, answered in 1
	rec.record(outcome{intended: at(1200 * time.Millisecond), sent: at(1200 * time.Millisecond), end: at(1300 * time.Millisecond)}) // step 1
	rec.record(outcome{intended: at(1900 * time.Millisecond), sent: at(1900 * time.Millisecond), end: at(2600 * time.Millisecond)}) // sent in 1, after the window
	rec.flush()
	close(out)
	c := newCollector(false, nil)
	c.run(out)
	if len(c.steps) != 2 || c.steps[0].requests != 2 || c.steps[1].requests != 2 {
		t.Errorf("steps %d: first %d requests, second %d; want 2 and 2", len(c.steps), c.steps[0].requests, c.steps[1].requests)
	}
}
