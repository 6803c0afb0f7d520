package load

import (
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
)

// A bucket is what one worker measured in one second. Workers record into
// their own bucket without locks and hand it to the collector when they
// move to the next second, so a run's memory does not grow with its length.
type bucket struct {
	sec       int
	step      int                     // the ramp step its requests were sent in; -1 outside a ramp
	hist, raw *hdrhistogram.Histogram // raw (uncorrected) for open loops only
	requests  int64
	classes   [numClasses]int64
	lastEndNs int64 // end of the latest request, since the window began
	withinSLA int64
}

var bucketPool = sync.Pool{New: func() any {
	return &bucket{hist: stats.NewHistogram(), raw: stats.NewHistogram()}
}}

func newBucket(sec, step int) *bucket {
	b := bucketPool.Get().(*bucket)
	b.sec, b.step = sec, step
	return b
}

func (b *bucket) free() {
	b.hist.Reset()
	b.raw.Reset()
	b.requests, b.classes, b.lastEndNs, b.withinSLA = 0, [numClasses]int64{}, 0, 0
	bucketPool.Put(b)
}

// recorder is one worker's side of the measurement.
type recorder struct {
	w   *window
	cur *bucket
	out chan<- *bucket
}

// record files one request: intended is when it was due, sent when the
// worker sent it, end when its reply (or error) came.
func (r *recorder) record(intended, sent, end time.Time, err error) {
	w := r.w
	if intended.Before(w.start) {
		return // warm-up
	}
	since := end.Sub(w.start)
	sec, step := int(since/time.Second), -1
	if w.stepAt != nil {
		// A ramp's step counts the requests sent in it, whenever their
		// replies come: a reply draining after a step ends is not the
		// next step's, nor the last step's after the window.
		step = w.stepAt(intended.Sub(w.start))
	}
	if r.cur == nil || r.cur.sec != sec || r.cur.step != step {
		r.flush()
		r.cur = newBucket(sec, step)
	}
	b := r.cur
	b.requests++
	b.lastEndNs = max(b.lastEndNs, int64(since))
	latency := end.Sub(intended)
	class := Class(-1)
	switch {
	case err != nil:
		class = Classify(err)
	case w.timeout > 0 && end.Sub(sent) > w.timeout:
		// A reply after the call's deadline is a timeout, whether or not
		// the transport heeded the deadline: its caller had given up.
		class = ClassTimeout
	case latency > w.sla:
		class = ClassOverSLA
	}
	if class >= 0 {
		b.classes[class]++
	} else {
		b.withinSLA++
	}
	if class == ClassRefused {
		return // never reached the service: no latency to speak of
	}
	stats.Record(b.hist, latency)
	if w.open {
		stats.Record(b.raw, end.Sub(sent))
	}
}

func (r *recorder) flush() {
	if r.cur != nil {
		r.out <- r.cur
		r.cur = nil
	}
}

// window is the measured time span's shared, read-only facts.
type window struct {
	start   time.Time
	sla     time.Duration
	timeout time.Duration // every call's deadline, from its send
	open    bool
	// stepAt is a ramp's step at a time since start; nil outside a ramp.
	stepAt func(time.Duration) int
}

// collector merges the workers' buckets into the run totals, the
// per-second series and the ramp's steps. A second is closed two seconds
// after a bucket of a later second arrives; a bucket for a closed second
// still counts, as late.
type collector struct {
	open     bool
	total    *bucket
	seconds  map[int]*bucket
	series   []results.Second
	closedTo int             // seconds below this are closed
	steps    map[int]*bucket // a ramp's, by the step its requests were sent in
	progress func(results.Second)
}

const closeLag = 2

func newCollector(open bool, progress func(results.Second)) *collector {
	total := &bucket{hist: stats.NewHistogram(), raw: stats.NewHistogram()}
	return &collector{open: open, total: total, seconds: map[int]*bucket{}, steps: map[int]*bucket{}, progress: progress}
}

func (c *collector) run(in <-chan *bucket) {
	for b := range in {
		c.add(b)
	}
	c.closeBefore(int(^uint(0) >> 1))
}

func (c *collector) add(b *bucket) {
	merge(c.total, b)
	if st := b.step; st >= 0 {
		if c.steps[st] == nil {
			c.steps[st] = &bucket{hist: stats.NewHistogram()}
		}
		merge(c.steps[st], b)
	}
	sec := b.sec
	if sec < c.closedTo {
		c.addLate(b)
		b.free()
		return
	}
	if s := c.seconds[sec]; s == nil {
		c.seconds[sec] = b
	} else {
		merge(s, b)
		b.free()
	}
	c.closeBefore(sec - closeLag)
}

func merge(into, b *bucket) {
	into.hist.Merge(b.hist)
	if into.raw != nil {
		into.raw.Merge(b.raw)
	}
	into.requests += b.requests
	into.withinSLA += b.withinSLA
	into.lastEndNs = max(into.lastEndNs, b.lastEndNs)
	for i, n := range b.classes {
		into.classes[i] += n
	}
}

// closeBefore turns every open second before sec into a point of the series.
func (c *collector) closeBefore(sec int) {
	for s := c.closedTo; s < sec && len(c.seconds) > 0; s++ {
		b := c.seconds[s]
		delete(c.seconds, s)
		pt := results.Second{T: s}
		if b != nil {
			pt.Requests, pt.Errors = b.requests, b.errors()
			pt.P50Us, pt.P99Us = b.hist.ValueAtQuantile(50), b.hist.ValueAtQuantile(99)
			b.free()
		}
		c.series = append(c.series, pt)
		c.closedTo = s + 1
		if c.progress != nil {
			c.progress(pt)
		}
	}
}

func (c *collector) addLate(b *bucket) {
	for i := range c.series {
		if pt := &c.series[i]; pt.T == b.sec {
			pt.Requests += b.requests
			pt.Errors += b.errors()
			pt.Late += b.requests
		}
	}
}

// failed counts the bucket's calls that got no good reply (late replies
// are replies).
func (b *bucket) failed() int64 { return b.errors() - b.classes[ClassOverSLA] }

func (b *bucket) errors() int64 {
	var n int64
	for _, v := range b.classes {
		n += v
	}
	return n
}
