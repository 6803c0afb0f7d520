package load

import (
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
)

// A bucket is what the collector holds of one second (or a ramp's step,
// or the whole window): histograms and counts.
type bucket struct {
	hist, raw *hdrhistogram.Histogram // raw (uncorrected): the open loop's whole window only; nil elsewhere
	requests  int64
	classes   [numClasses]int64
	lastEndNs int64 // end of the latest request, since the window began
	withinSLA int64
	// first is feeds' time to their first message, and messages the
	// messages of their replies (late ones included, as RPS counts them):
	// the whole window's only. first is nil until a feed's first message.
	first    *hdrhistogram.Histogram
	messages int64
	// live is kept for live metrics (Config.Live), by seconds only.
	live *liveCounts
}

// A sample is one request as a worker saw it: its latency (from its due
// time), from its actual send (raw), the generator's own lateness in
// sending it, its class (-1 for a good reply) and its end. A feed's also
// has its messages and its first message's time from the due time, as
// latency is (-1 when none came: a unary call's, or a feed's with none).
type sample struct {
	latency, raw, late, first time.Duration
	class                     Class
	endNs                     int64 // since the window began
	messages                  int64
}

// An outcome is one call as its worker saw it: when it was due
// (intended), sent and ended, the generator's own lateness in sending it
// (its timers, its hand-off; not the wait for a worker the service kept
// busy), when a feed's first message came (zero: none) and how many came,
// and its error.
type outcome struct {
	intended, sent, end time.Time
	late                time.Duration
	first               time.Time
	messages            int64
	err                 error
}

// A batch is one worker's samples of one second (and ramp step): workers
// record into their own batch without locks and hand it to the collector
// when they move to the next second or it fills. A batch holds a few KiB,
// not a histogram: a generator's memory does not grow with its workers'
// number by histograms (256 workers hold 256 batches).
type batch struct {
	sec, step int
	samples   []sample
}

const batchSize = 64

var batchPool = sync.Pool{New: func() any { return &batch{samples: make([]sample, 0, batchSize)} }}

func newBatch(sec, step int) *batch {
	b := batchPool.Get().(*batch)
	b.sec, b.step, b.samples = sec, step, b.samples[:0]
	return b
}

func (b *batch) free() { batchPool.Put(b) }

// recorder is one worker's side of the measurement.
type recorder struct {
	w   *window
	cur *batch
	out chan<- *batch
}

// record files one call. A call due in the warm-up is not the window's.
func (r *recorder) record(o outcome) {
	w := r.w
	if o.intended.Before(w.start) {
		return // warm-up
	}
	since := o.end.Sub(w.start)
	sec, step := int(since/time.Second), -1
	if w.stepAt != nil {
		// A ramp's step counts the requests sent in it, whenever their
		// replies come: a reply draining after a step ends is not the
		// next step's, nor the last step's after the window.
		step = w.stepAt(o.intended.Sub(w.start))
	}
	if r.cur == nil || r.cur.sec != sec || r.cur.step != step || len(r.cur.samples) == batchSize {
		r.flush()
		r.cur = newBatch(sec, step)
	}
	latency, raw := o.end.Sub(o.intended), o.end.Sub(o.sent)
	first := time.Duration(-1)
	if !o.first.IsZero() {
		first = o.first.Sub(o.intended)
	}
	r.cur.samples = append(r.cur.samples, sample{latency: latency, raw: raw, late: o.late, first: first,
		class: w.classify(latency, raw, o.err), endNs: int64(since), messages: o.messages})
	if raw >= slowCall {
		r.flush()
	}
}

// classify is a call's class by its error, its time from its send (raw)
// and its latency; -1 for a good reply within the SLA.
func (w *window) classify(latency, raw time.Duration, err error) Class {
	switch {
	case err != nil:
		return Classify(err)
	case w.timeout > 0 && raw > w.timeout:
		// A reply after the call's deadline is a timeout, whether or not
		// the transport heeded the deadline: its caller had given up.
		return ClassTimeout
	case latency > w.sla:
		return ClassOverSLA
	}
	return -1
}

// slowCall is a call slow enough that its worker hands its samples over at
// once: its next sample may come seconds later, after the collector has
// closed this one's second. A worker calling faster records several
// samples a second, and hands each second's over as it moves on.
const slowCall = 100 * time.Millisecond

func (r *recorder) flush() {
	if r.cur != nil {
		r.out <- r.cur
		r.cur = nil
	}
}

// add files s in b, its latency where b keeps a histogram (a late
// batch's count keeps none), its uncorrected latency where b keeps one and
// its latency's bucket where b keeps live counts.
func (b *bucket) add(s sample) {
	b.requests++
	b.lastEndNs = max(b.lastEndNs, s.endNs)
	if s.class >= 0 {
		b.classes[s.class]++
	} else {
		b.withinSLA++
	}
	if s.class == ClassRefused {
		return // never reached the service: no latency to speak of
	}
	if b.hist != nil {
		stats.Record(b.hist, s.latency)
	}
	if b.raw != nil {
		stats.Record(b.raw, s.raw)
	}
	if b.live != nil {
		b.live.add(s.latency)
	}
}

// addFeed files a feed's call that had messages: its time to the first,
// whatever became of the call, as its latency is filed (a refused call's,
// cut off by the service's death, is not), and the messages of a reply,
// late or not; a failed call's count for nothing, as it does in RPS.
func (b *bucket) addFeed(s sample) {
	if s.first >= 0 && s.class != ClassRefused {
		if b.first == nil {
			b.first = stats.NewHistogram()
		}
		stats.Record(b.first, s.first)
	}
	if s.class < 0 || s.class == ClassOverSLA {
		b.messages += s.messages
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

// collector files the workers' batches into the run totals, the
// per-second series and the ramp's steps. A second is closed two seconds
// after a batch of a later second arrives; a batch for a closed second
// still counts, as late.
type collector struct {
	open     bool
	total    *bucket
	late     *hdrhistogram.Histogram // the generator's own lateness, open loops
	seconds  map[int]*bucket
	series   []results.Second
	closedTo int             // seconds below this are closed
	steps    map[int]*bucket // a ramp's, by the step its requests were sent in
	progress func(results.Second)
	live     *liveFeed // nil unless Config.Live is set
}

const closeLag = 2

func newCollector(open bool, progress func(results.Second)) *collector {
	total := &bucket{hist: stats.NewHistogram()}
	if open {
		total.raw = stats.NewHistogram()
	}
	return &collector{open: open, total: total, late: stats.NewHistogram(), seconds: map[int]*bucket{},
		steps: map[int]*bucket{}, progress: progress}
}

func (c *collector) run(in <-chan *batch) {
	for b := range in {
		c.add(b)
	}
	c.closeBefore(int(^uint(0) >> 1))
}

func (c *collector) add(b *batch) {
	defer b.free()
	var step, sec *bucket
	if b.step >= 0 {
		if step = c.steps[b.step]; step == nil {
			step = &bucket{hist: stats.NewHistogram()}
			c.steps[b.step] = step
		}
	}
	late := b.sec < c.closedTo
	if !late {
		if sec = c.seconds[b.sec]; sec == nil {
			sec = &bucket{hist: stats.NewHistogram()}
			if c.live != nil {
				sec.live = &liveCounts{}
			}
			c.seconds[b.sec] = sec
		}
	}
	for _, s := range b.samples {
		c.total.add(s)
		if s.messages > 0 {
			c.total.addFeed(s)
		}
		if c.open {
			stats.Record(c.late, s.late)
		}
		if step != nil {
			step.add(s)
		}
		if sec != nil {
			sec.add(s)
		}
	}
	if late {
		c.addLate(b)
		return
	}
	c.closeBefore(b.sec - closeLag)
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
		}
		c.series = append(c.series, pt)
		c.closedTo = s + 1
		if c.progress != nil {
			c.progress(pt)
		}
		if c.live != nil {
			c.live.second(pt, b)
		}
	}
}

// addLate counts a batch of a closed second into its point of the
// series, and hands it to live metrics as late.
func (c *collector) addLate(b *batch) {
	late := &bucket{}
	if c.live != nil {
		late.live = &liveCounts{}
	}
	for _, s := range b.samples {
		late.add(s)
	}
	for i := range c.series {
		if pt := &c.series[i]; pt.T == b.sec {
			pt.Requests += late.requests
			pt.Errors += late.errors()
			pt.Late += late.requests
		}
	}
	if c.live != nil {
		c.live.late(b.sec, late)
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
