package oneway

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
	"github.com/hopbench/hopbench/internal/transport"
)

// rig is one one-way run's publishers and subscribers on its own target.
type rig struct {
	oc       Config
	m        transport.Messenger
	tcfg     transport.Config
	target   string
	run      uint64
	plan     transport.Plan
	t        *tracker
	body     []byte
	encode   func() ([]byte, error) // with EncodeEach: the body made anew
	pubs     []transport.Publisher
	subs     []transport.Subscriber
	subOf    []*consumer
	producer atomic.Uint32
	mu       sync.Mutex // guards subs (an abort ends one), lost and aborted
	lost     []bool     // a subscription lost and not yet made again
	aborted  []string
	reopened atomic.Int64 // connections made again after one was lost
	lag      []results.LagPoint
}

// newRig prepares the run's target, subscribes every consumer and opens
// the publishers, undoing what it did when a step fails.
func newRig(ctx context.Context, oc Config, tgt *load.Target) (*rig, error) {
	tc := tgt.Config()
	m, err := transport.MessengerOf(tc.Stack.Transport)
	if err != nil {
		return nil, err
	}
	if len(tgt.Body()) == 0 {
		return nil, fmt.Errorf("one-way messages carry a body: use the post or echo operation, not %s", tc.Op)
	}
	r := &rig{oc: oc, m: m, tcfg: tgt.TransportConfig(), body: tgt.Body(), plan: transport.Plan{Consumers: oc.Consumers}}
	if oc.EncodeEach {
		r.encode = tgt.Encode
	}
	r.run = runID()
	if r.target, err = runTarget(tc.Addr, tc.Stack.Transport, r.run); err != nil {
		return nil, err
	}
	var names []string
	for i := range oc.Groups {
		names = append(names, "g"+strconv.Itoa(i+1))
		r.plan.Groups = append(r.plan.Groups, r.brokerGroup(names[i]))
	}
	r.t = newTracker(r.run, names, oc.Consumers, tgt.ReadBody)
	if err := m.Prepare(ctx, r.target, r.tcfg, r.plan); err != nil {
		return nil, fmt.Errorf("preparing %s: %w", r.target, err)
	}
	if err := r.open(ctx, max(tc.Connections, 1)); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

// open subscribes every consumer, then opens the publishers.
func (r *rig) open(ctx context.Context, publishers int) error {
	for _, g := range r.t.groups {
		for _, c := range g.consumers {
			s, err := r.m.Subscribe(ctx, r.target, r.brokerGroup(g.name), r.tcfg, c.deliver)
			if err != nil {
				return fmt.Errorf("subscribing %s to %s: %w", c.name, r.target, err)
			}
			r.subs, r.subOf, r.lost = append(r.subs, s), append(r.subOf, c), append(r.lost, false)
		}
	}
	open := func(ctx context.Context) (transport.Publisher, error) { return r.m.Publisher(ctx, r.target, r.tcfg) }
	for range publishers {
		p, err := open(ctx)
		if err != nil {
			return fmt.Errorf("a publisher to %s: %w", r.target, err)
		}
		r.pubs = append(r.pubs, &redial{open: open, p: p, reopened: &r.reopened})
	}
	return nil
}

// close stops every publisher and subscriber and removes the target.
func (r *rig) close() {
	for _, p := range r.pubs {
		p.Close()
	}
	r.closeSubs()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r.m.Remove(ctx, r.target, r.tcfg, r.plan)
}

func (r *rig) closeSubs() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, s := range r.subs {
		if s != nil {
			r.subOf[i].stop()
			s.Close()
			r.subs[i] = nil
		}
	}
}

// newCall is one producer: a worker's publishes, in its own sequence,
// on the publishers in turn.
func (r *rig) newCall() load.Call {
	id := r.producer.Add(1) - 1
	pub, key := r.pubs[int(id)%len(r.pubs)], strconv.FormatUint(uint64(id), 10)
	msg := make([]byte, stampSize+len(r.body))
	copy(msg[stampSize:], r.body)
	var pseq uint64
	return func(ctx context.Context) error {
		intended, sent := load.Due(ctx)
		seq := r.t.seq.Add(1) - 1
		if seq >= maxMessages {
			return transport.Errorf(transport.CodeTooLarge, "a run publishes at most %d messages: shorten it or lower the rate", maxMessages)
		}
		if r.encode != nil {
			body, err := r.encode()
			if err != nil {
				return fmt.Errorf("encoding the message: %w", err)
			}
			msg = append(msg[:stampSize], body...)
		}
		Stamp{Run: r.t.run, Seq: seq, Producer: id, PSeq: pseq, Intended: intended.UnixNano(), Sent: sent.UnixNano()}.put(msg)
		pseq++
		if err := pub.Publish(ctx, key, msg); err != nil {
			r.t.failed.Add(1)
			return err
		}
		r.t.published.set(seq)
		r.t.taken.Add(1)
		return nil
	}
}

// measure publishes through the load engine, waits for the consumers to
// drain, and accounts for every message.
func (r *rig) measure(ctx context.Context, cfg load.Config) (*load.Result, error) {
	start := time.Now()
	opened := cfg.AtStart
	cfg.AtStart = func() {
		r.t.from.Store(time.Now().UnixNano())
		if opened != nil {
			opened()
		}
		r.abortLater(ctx)
	}
	stop := r.sampleLag(start)
	watch, unwatch := context.WithCancel(ctx)
	var watching sync.WaitGroup
	watching.Add(1)
	go func() { defer watching.Done(); r.resubscribe(watch) }()
	res, err := load.Run(ctx, cfg, r.newCall)
	drain, drained := time.Duration(0), false
	if err == nil {
		drain, drained = r.drain(ctx)
	}
	unwatch()
	watching.Wait()
	stop()
	if err != nil {
		return nil, err
	}
	r.closeSubs()
	ow, e2e, raw := r.t.account()
	ow.Consumers, ow.Fanout = r.oc.Consumers, r.oc.Groups > 1
	ow.DrainMs, ow.Drained = float64(drain.Microseconds())/1e3, drained
	r.mu.Lock()
	publish := stats.Summarize(res.Latency)
	ow.Publish, ow.Lag, ow.Aborted, ow.Reconnects = &publish, r.lag, r.aborted, r.reopened.Load()
	r.mu.Unlock()
	res.Latency, res.Uncorrected, res.OneWay = e2e, raw, &ow
	if ow.Lost > 0 { // a message the broker took and no consumer did failed
		res.Errors += ow.Lost
		res.ErrorsByClass[load.ClassLost.String()] += ow.Lost
	}
	return res, nil
}

// drain waits until every group has taken every published message, for
// at most the drain bound, and says how long it took.
func (r *rig) drain(ctx context.Context) (time.Duration, bool) { return r.drainFor(ctx, r.oc.Drain) }

func (r *rig) drainFor(ctx context.Context, bound time.Duration) (time.Duration, bool) {
	start := time.Now()
	deadline := start.Add(bound)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if lag, _ := r.t.behind(); lag <= 0 {
			return time.Since(start), true
		}
		select {
		case <-ctx.Done():
			return time.Since(start), false
		case now := <-tick.C:
			if now.After(deadline) {
				return time.Since(start), false
			}
		}
	}
}

// sampleLag records, each second until stopped, what the group furthest
// behind has still to consume.
func (r *rig) sampleLag(start time.Time) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-tick.C:
				lag, consumed := r.t.behind()
				r.lag = append(r.lag, results.LagPoint{T: now.Sub(start).Seconds(), Published: r.t.taken.Load(), Consumed: consumed, Lag: lag})
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// abortLater drops the first consumer oc.Abort into the window, as a
// crash would, unless the run ends first.
func (r *rig) abortLater(ctx context.Context) {
	if r.oc.Abort <= 0 || len(r.subs) == 0 {
		return
	}
	time.AfterFunc(r.oc.Abort, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if ctx.Err() != nil || r.subs[0] == nil {
			return
		}
		r.subOf[0].stop()
		r.subs[0].Abort()
		r.subs[0] = nil
		r.aborted = append(r.aborted, fmt.Sprintf("%s at %s into the window", r.subOf[0].name, r.oc.Abort))
	})
}
