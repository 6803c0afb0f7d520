package oneway

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
)

// tracker accounts for every message of one run: which the broker took,
// and which each group consumed, how often and in what order.
type tracker struct {
	run uint64
	// from is the measured window's start (Unix ns): end-to-end latency
	// is recorded for messages due from then on, as a call's is.
	from      atomic.Int64
	seq       atomic.Uint64 // messages handed out
	published bitmap
	taken     atomic.Int64 // messages the broker took
	failed    atomic.Int64 // publishes that failed
	groups    []*group
	// decode reads a message's body as a consumer would; an error counts
	// the message foreign.
	decode func([]byte) error
}

// group is one subscription group's accounting.
type group struct {
	name      string
	seen      bitmap
	distinct  atomic.Int64
	dup       atomic.Int64
	foreign   atomic.Int64
	consumers []*consumer
}

// consumer is what one subscriber took: only its own delivering
// goroutine writes it, until its subscription is closed.
type consumer struct {
	g          *group
	t          *tracker
	name       string
	deliveries atomic.Int64
	outOfOrder int64
	next       map[uint32]uint64 // each producer's next sequence number
	e2e, raw   *hdrhistogram.Histogram
	stopped    bool
	mu         sync.Mutex // held while delivering, and to read at the end
}

func newTracker(run uint64, groups []string, consumers int, decode func([]byte) error) *tracker {
	t := &tracker{run: run, decode: decode}
	for _, name := range groups {
		g := &group{name: name}
		for i := range consumers {
			g.consumers = append(g.consumers, &consumer{g: g, t: t, name: name + "/" + strconv.Itoa(i+1),
				next: map[uint32]uint64{}, e2e: stats.NewHistogram(), raw: stats.NewHistogram()})
		}
		t.groups = append(t.groups, g)
	}
	return t
}

// deliver accounts for one message as its subscriber takes it; false,
// taking nothing, once the consumer has stopped.
func (c *consumer) deliver(msg []byte) bool {
	now := time.Now().UnixNano()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return false
	}
	c.deliveries.Add(1)
	s, body, err := readStamp(msg)
	if err == nil && s.Run != c.t.run {
		err = errNoStamp
	}
	if err == nil {
		err = c.t.decode(body)
	}
	if err != nil {
		c.g.foreign.Add(1)
		return true
	}
	if c.g.seen.set(s.Seq) {
		c.g.dup.Add(1)
	} else {
		c.g.distinct.Add(1)
	}
	if next := c.next[s.Producer]; s.PSeq < next {
		c.outOfOrder++
	} else {
		c.next[s.Producer] = s.PSeq + 1
	}
	if s.Intended >= c.t.from.Load() {
		c.e2e.RecordValue(max((now-s.Intended)/1e3, 1))
		c.raw.RecordValue(max((now-s.Sent)/1e3, 1))
	}
	return true
}

// stop makes the consumer take nothing more: what its subscription still
// delivers goes unsettled.
func (c *consumer) stop() {
	c.mu.Lock()
	c.stopped = true
	c.mu.Unlock()
}

// restart starts the end-to-end latencies afresh, for messages due from
// at on (a capacity search's next probe).
func (t *tracker) restart(at time.Time) {
	t.from.Store(at.UnixNano())
	for _, g := range t.groups {
		for _, c := range g.consumers {
			c.mu.Lock()
			c.e2e.Reset()
			c.raw.Reset()
			c.mu.Unlock()
		}
	}
}

// latencies are the end-to-end latencies recorded since the last
// restart, from the intended and from the actual send.
func (t *tracker) latencies() (e2e, raw *hdrhistogram.Histogram) {
	e2e, raw = stats.NewHistogram(), stats.NewHistogram()
	for _, g := range t.groups {
		for _, c := range g.consumers {
			c.mu.Lock()
			e2e.Merge(c.e2e)
			raw.Merge(c.raw)
			c.mu.Unlock()
		}
	}
	return e2e, raw
}

// behind is the published messages the furthest-behind group has not
// consumed, and what it consumed.
func (t *tracker) behind() (lag, consumed int64) {
	taken := t.taken.Load()
	consumed = taken
	for _, g := range t.groups {
		consumed = min(consumed, g.distinct.Load())
	}
	return taken - consumed, consumed
}

// account is the run's accounting once every subscriber has stopped.
func (t *tracker) account() (ow results.OneWay, e2e, raw *hdrhistogram.Histogram) {
	n := t.seq.Load()
	ow.Published, ow.PublishFailed = t.taken.Load(), t.failed.Load()
	for _, g := range t.groups {
		gf := results.Group{Name: g.name, Consumed: g.distinct.Load(), Duplicated: g.dup.Load(), Foreign: g.foreign.Load(),
			Lost: g.seen.missing(&t.published, n), Unconfirmed: t.published.missing(&g.seen, n)}
		for _, c := range g.consumers {
			c.mu.Lock()
			gf.PerConsumer = append(gf.PerConsumer, c.deliveries.Load())
			gf.OutOfOrder += c.outOfOrder
			c.mu.Unlock()
		}
		ow.Lost += gf.Lost
		ow.Duplicated += gf.Duplicated
		ow.OutOfOrder += gf.OutOfOrder
		ow.Groups = append(ow.Groups, gf)
	}
	e2e, raw = t.latencies()
	return ow, e2e, raw
}
