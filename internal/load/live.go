package load

import (
	"time"

	"github.com/hopbench/hopbench/internal/results"
)

// LatencyBounds are the upper bounds of the buckets a Tick counts
// latencies in, the last bucket being beyond the last bound: fixed, so
// that every second of every run shares one layout, as a Prometheus
// histogram's le labels must.
var LatencyBounds = [...]time.Duration{
	100 * time.Microsecond, 250 * time.Microsecond, 500 * time.Microsecond,
	time.Millisecond, 2500 * time.Microsecond, 5 * time.Millisecond,
	10 * time.Millisecond, 25 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2500 * time.Millisecond, 5 * time.Second, 10 * time.Second,
}

// Tick is one measured second as live metrics see it, handed to
// Config.Live as the second closes: its counts (the second's own, not
// totals), its latencies counted in LatencyBounds, and, sampled as it
// closes, the calls in flight and the rate an open loop makes due. A tick
// whose Late is set carries requests that reported after their second had
// closed: counts only, nothing sampled.
type Tick struct {
	results.Second
	// ByClass counts the errors by Class.
	ByClass ClassCounts
	// Latency counts latencies, as Result.Latency takes them (refused
	// calls have none), in LatencyBounds' buckets; LatencySum adds them.
	Latency    [len(LatencyBounds) + 1]uint64
	LatencySum time.Duration
	// InFlight is the calls under way as the second closed.
	InFlight int
	// IntendedRate is the requests/s an open loop makes due in this
	// second; zero for a closed loop, which has no rate of its own.
	IntendedRate float64
}

// ClassCounts counts something by Class, in ClassNames' order.
type ClassCounts [numClasses]int64

// liveCounts is what a bucket keeps for live metrics besides its
// histogram: its latencies in LatencyBounds' buckets, and their sum. Only
// a load with Config.Live set keeps them.
type liveCounts struct {
	buckets [len(LatencyBounds) + 1]uint64
	sum     time.Duration
}

func (l *liveCounts) add(d time.Duration) {
	i := 0
	for i < len(LatencyBounds) && d > LatencyBounds[i] {
		i++
	}
	l.buckets[i]++
	l.sum += d
}

// liveFeed hands the collector's seconds to Config.Live, with what it
// samples as each closes.
type liveFeed struct {
	emit     func(Tick)
	inFlight func() int
	intended func(sec int) float64
}

// second hands on a closed second, b its bucket (nil when no request
// ended in it).
func (f *liveFeed) second(pt results.Second, b *bucket) {
	t := tickOf(pt, b)
	t.InFlight, t.IntendedRate = f.inFlight(), f.intended(pt.T)
	f.emit(t)
}

// late hands on requests of closed second sec, counted in b.
func (f *liveFeed) late(sec int, b *bucket) {
	f.emit(tickOf(results.Second{T: sec, Requests: b.requests, Errors: b.errors(), Late: b.requests}, b))
}

func tickOf(pt results.Second, b *bucket) Tick {
	t := Tick{Second: pt}
	if b == nil {
		return t
	}
	t.ByClass = b.classes
	if b.live != nil {
		t.Latency, t.LatencySum = b.live.buckets, b.live.sum
	}
	return t
}

// intendedAt is the rate an open loop makes due in measured second sec;
// zero for a closed loop.
func (c *Config) intendedAt(sec int) float64 {
	switch {
	case c.Kind == Rate:
		return c.Rate
	case c.Kind == Ramp && c.RampOf == "rate":
		return c.Steps.ValueAt(time.Duration(sec) * time.Second)
	}
	return 0
}

// shiftedBy is cfg's Progress and Live for a part of a longer load whose
// seconds start at off (a capacity search's probe).
func (c *Config) shiftedBy(off int) (progress func(results.Second), live func(Tick)) {
	if p := c.Progress; p != nil {
		progress = func(s results.Second) { s.T += off; p(s) }
	}
	if l := c.Live; l != nil {
		live = func(t Tick) { t.T += off; l(t) }
	}
	return progress, live
}
