package load

import (
	"testing"

	"github.com/hopbench/hopbench/internal/results"
)

// However long a run, the collector holds only the last few seconds'
// histograms: memory does not grow with the run's length.
func TestTheCollectorHoldsAFewSecondsWhateverTheLength(t *testing.T) {
	var closed int
	c := newCollector(false, nil, func(results.Second) { closed++ })
	const seconds, workers = 1000, 8
	held := 0
	for sec := range seconds {
		for range workers {
			b := newBucket(sec)
			b.requests = 10
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
	late := newBucket(3)
	late.requests = 2
	c.add(late)
	if c.series[3].Late != 2 || c.series[3].Requests != workers*10+2 {
		t.Errorf("late bucket: %+v", c.series[3])
	}
}
