package load

import (
	"context"
	"errors"
	"math"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
	"github.com/hopbench/hopbench/internal/transport"
)

// Run drives the load described by cfg, making each request through a
// Call from newCall (one per worker), and returns what it measured. It
// returns early, with what was measured so far, when ctx ends.
func Run(ctx context.Context, cfg Config, newCall func() Call) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Kind == Capacity {
		return capacitySearch(ctx, cfg, newCall)
	}
	e := &engine{cfg: cfg, clock: cfg.clock, newCall: newCall, batches: make(chan *batch, 1024)}
	e.t0 = e.clock.Now()
	e.win = &window{start: e.t0.Add(cfg.Warmup), sla: cfg.SLA, timeout: cfg.Timeout, open: cfg.Open()}
	e.end = e.win.start.Add(cfg.Duration)
	if cfg.Requests > 0 {
		e.end = time.Time{}
		e.budget.Store(cfg.Requests)
	}
	if cfg.Kind == Ramp {
		e.win.stepAt = cfg.Steps.StepAt
	}
	wd := newWatchdog(cfg.Timeout, e.clock)
	col := newCollector(e.win.open, cfg.Progress)
	if cfg.Live != nil {
		col.live = &liveFeed{emit: cfg.Live, inFlight: wd.inFlight, intended: cfg.intendedAt}
	}
	collected := make(chan struct{})
	go func() { col.run(e.batches); close(collected) }()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go wd.run(ctx)

	cpu0 := cpuAt(ctx, e.clock, e.win.start, cfg.AtStart)
	if cfg.Open() {
		e.open(ctx, wd)
	} else {
		e.closed(ctx, wd)
	}
	e.workers.Wait()
	cpu := cpu0.since()
	close(e.batches)
	<-collected
	return e.result(col, cpu), nil
}

type engine struct {
	notSent int64 // open loops: requests due in the window never sent
	// sent and onTime count open-loop requests of the window as they are
	// sent (Result.Sent, SentOnTime).
	sent, onTime atomic.Int64
	cfg          Config
	clock        clock
	newCall      func() Call
	t0, end      time.Time // end is zero when a request count ends the window
	win          *window
	budget       atomic.Int64
	batches      chan *batch
	workers      sync.WaitGroup
}

// done reports whether no request is to start at now.
func (e *engine) done(ctx context.Context, now time.Time) bool {
	if ctx.Err() != nil {
		return true
	}
	if e.end.IsZero() {
		return !now.Before(e.win.start) && e.budget.Add(-1) < 0
	}
	return !now.Before(e.end)
}

// closed runs Clients workers, or a ramp of them, each sending when its
// last reply came.
func (e *engine) closed(ctx context.Context, wd *watchdog) {
	start := func(n int) {
		for range n {
			if ctx.Err() != nil {
				return // stopped while starting: start no more
			}
			e.workers.Add(1)
			go e.closedWorker(ctx, wd.slot())
		}
	}
	if e.cfg.Kind != Ramp {
		start(e.cfg.Clients)
		return
	}
	running := int(e.cfg.Steps.From)
	start(running)
	for step := 1; ; step++ {
		at := e.win.start.Add(time.Duration(step) * e.cfg.Steps.Every)
		if !at.Before(e.end) || !e.clock.SleepUntil(ctx, at) {
			return
		}
		want := int(e.cfg.Steps.value(step))
		start(want - running)
		running = want
	}
}

func (e *engine) closedWorker(ctx context.Context, s *slot) {
	defer e.workers.Done()
	call := e.newCall()
	rec := &recorder{w: e.win, out: e.batches}
	defer rec.flush()
	var held heldError
	defer held.finish(ctx, rec, e.clock)
	back := backoff{clock: e.clock}
	actx, arr := withArrivals(ctx, e.clock)
	for {
		sent := e.clock.Now()
		if e.done(ctx, sent) {
			return
		}
		arr.reset(sent, sent)
		halted, err := cutOff(ctx, s.call(actx, call, sent))
		if halted {
			return
		}
		held.record(rec, arr.into(outcome{intended: sent, sent: sent, end: e.clock.Now(), err: err}))
		if !back.after(ctx, err) {
			return
		}
	}
}

// heldError holds a worker's failed call until the worker goes on. A call
// that failed as the user stopped the run, its connection torn down a
// moment before the worker saw the stop, is the interrupt's and not the
// service's: an interrupted amqp run counted one such error a worker.
type heldError struct{ outcome }

// interruptGrace is how soon before a worker sees the user's stop a
// failed call is taken for the interrupt's.
const interruptGrace = 250 * time.Millisecond

// record files a call through rec, holding a failed one until the next.
func (h *heldError) record(rec *recorder, o outcome) {
	h.flush(rec)
	if o.err != nil {
		h.outcome = o
		return
	}
	rec.record(o)
}

func (h *heldError) flush(rec *recorder) {
	if h.err != nil {
		rec.record(h.outcome)
		h.err = nil
	}
}

// finish files the held call as the worker ends, unless the user stopped
// the run within interruptGrace of its failing.
func (h *heldError) finish(ctx context.Context, rec *recorder, c clock) {
	if h.err != nil && stopped(ctx) && c.Now().Sub(h.end) < interruptGrace {
		h.err = nil
	}
	h.flush(rec)
}

// ErrServiceDied is what a run's context is cancelled with (wrapped in its
// cause) when the service or its broker died: the calls it cut off failed
// for the service. Any other end of the context (the user's Ctrl-C, a
// signal, a deadline) cuts calls off that say nothing about the service.
var ErrServiceDied = errors.New("the service died")

// cutOff reads a call's error once ctx may have ended: a call cut off by
// the user, a signal or a deadline says nothing about the service
// (halted), but one cut off because the service or its broker died
// (ErrServiceDied) failed for it, and counts as refused. (A signal's
// cause is its own error, not context.Canceled: an interrupted run once
// counted each worker's call in flight as refused.)
func cutOff(ctx context.Context, err error) (halted bool, _ error) {
	if err == nil || ctx.Err() == nil {
		return false, err
	}
	cause := context.Cause(ctx)
	if !errors.Is(cause, ErrServiceDied) {
		return true, err
	}
	return false, transport.Errorf(transport.CodeUnavailable, "%v: %w", cause, err)
}

// stopped says whether ctx was ended by the user, a signal or a deadline,
// not by the service's death.
func stopped(ctx context.Context) bool {
	return ctx.Err() != nil && !errors.Is(context.Cause(ctx), ErrServiceDied)
}

// backoff paces a closed-loop worker whose calls are refused: a service or
// broker that refuses at once would otherwise be called again at once, and
// a dead one would mint millions of "requests".
type backoff struct {
	clock clock
	wait  time.Duration
}

// after waits, after a refused call, 1 ms doubling to 100 ms; any other
// outcome resets it. It is false when ctx ended meanwhile.
func (b *backoff) after(ctx context.Context, err error) bool {
	if err == nil || Classify(err) != ClassRefused {
		b.wait = 0
		return true
	}
	b.wait = min(max(2*b.wait, time.Millisecond), 100*time.Millisecond)
	return b.clock.SleepUntil(ctx, b.clock.Now().Add(b.wait))
}

// handOffLead is how long before its due time a request is handed to a
// worker: the hand-off (a sleeping goroutine woken on another CPU, tens
// of µs on a VM) happens before the due time, off the measured path, and
// the worker sleeps until the due time itself.
const handOffLead = time.Millisecond

// open dispatches requests to a pool of workers a little before their due
// times (handOffLead). A due request that finds no free worker waits for
// one with its due time unchanged: the wait is part of its latency, as
// the caller would see it.
func (e *engine) open(ctx context.Context, wd *watchdog) {
	tickets := make(chan time.Time) // each request's due time
	for range e.cfg.Workers {
		e.workers.Add(1)
		go e.openWorker(ctx, wd.slot(), tickets)
	}
	defer close(tickets)
	p := e.pacer()
	// Requests still waiting to be sent this long after the window are
	// not sent at all: a generator far behind its rate would otherwise
	// send late for ever.
	stop := e.end.Add(max(time.Second, e.cfg.SLA))
	for {
		due, ok := p.Next()
		if !ok {
			return
		}
		if e.clock.Now().After(stop) {
			e.notSent = e.remaining(ctx, due, p)
			return
		}
		at := e.t0.Add(due)
		if hand := at.Add(-handOffLead); e.clock.Now().Before(hand) && !e.clock.SleepUntil(ctx, hand) {
			return
		}
		select {
		case tickets <- at:
		case <-ctx.Done():
			return
		}
	}
}

// openWorker sends each request it is handed at its due time. A request
// handed before its due time was on time: the worker sleeps until then,
// and whatever its own wake-up adds is the generator's lateness, recorded
// as such and not charged to the service. A request handed after its due
// time while this worker was free is late by the generator's doing too
// (the dispatcher's timer); one this worker took after its due time
// because it was busy waited for the service, and that wait is charged.
func (e *engine) openWorker(ctx context.Context, s *slot, tickets <-chan time.Time) {
	defer e.workers.Done()
	call := e.newCall()
	rec := &recorder{w: e.win, out: e.batches}
	defer rec.flush()
	var held heldError
	defer held.finish(ctx, rec, e.clock)
	actx, arr := withArrivals(ctx, e.clock)
	for {
		free := e.clock.Now()
		due, ok := nextTicket(tickets, rec)
		if !ok {
			return
		}
		if e.clock.Now().Before(due) && !e.clock.SleepUntil(ctx, due) {
			return
		}
		sent := e.clock.Now()
		e.countSent(due, sent)
		late, from := sent.Sub(later(due, free)), sent
		if free.After(due) {
			from = due // behind: every worker was busy with the service
		}
		arr.reset(from, sent)
		halted, err := cutOff(ctx, s.call(actx, call, sent))
		if halted {
			return
		}
		held.record(rec, arr.into(outcome{intended: from, sent: sent, end: e.clock.Now(), late: late, err: err}))
	}
}

// nextTicket is the worker's next request. A worker with none waiting
// hands its samples to the collector before it waits: at a slow rate over
// many workers its next ticket may be seconds away, and samples held so
// long reach the collector after their second has closed.
func nextTicket(tickets <-chan time.Time, rec *recorder) (time.Time, bool) {
	select {
	case due, ok := <-tickets:
		return due, ok
	default:
	}
	rec.flush()
	due, ok := <-tickets
	return due, ok
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// countSent counts a request of the window as it is sent: by its
// intended time, as the recorder counts it.
func (e *engine) countSent(intended, sent time.Time) {
	if intended.Before(e.win.start) {
		return
	}
	e.sent.Add(1)
	if e.end.IsZero() || sent.Before(e.end) {
		e.onTime.Add(1)
	}
}

// counter is a Pacer that counts the due times it has left by arithmetic
// (Constant, RateRamp); estimator one that can say how many it has left
// on average (Poisson), for a walk of them cut short.
type (
	counter interface {
		Left(from time.Duration) int64
	}
	countingPacer interface {
		Pacer
		counter
	}
	estimator interface {
		ExpectedLeft(from time.Duration) float64
	}
)

// walkBudget bounds the time a count of due times may walk a pacer that
// cannot count them by arithmetic: at 10^12 requests/s a walk would take
// minutes, and a run must end within 2 s of being interrupted. It is this
// process's time, not the load's clock: a fake clock does not move while
// the walk burns the CPU.
const walkBudget = 250 * time.Millisecond

// remaining counts the measured requests p still holds, due included:
// by arithmetic where the pacer allows, otherwise by walking it, checking
// ctx and walkBudget every few thousand due times and, when either ends
// the walk, adding the pacer's expectation for the rest.
func (e *engine) remaining(ctx context.Context, due time.Duration, p Pacer) int64 {
	var n int64
	if due >= e.cfg.Warmup {
		n = 1
	}
	if c, ok := p.(counter); ok {
		return n + c.Left(e.cfg.Warmup)
	}
	stop := time.Now().Add(walkBudget)
	for i := 1; ; i++ {
		due, ok := p.Next()
		if !ok {
			return n
		}
		if due >= e.cfg.Warmup {
			n++
		}
		if i%4096 == 0 && (ctx.Err() != nil || time.Now().After(stop)) {
			if est, ok := p.(estimator); ok {
				n += int64(math.Round(est.ExpectedLeft(e.cfg.Warmup)))
			}
			return n
		}
	}
}

// pacer covers the warm-up and the measured window, from t0.
func (e *engine) pacer() Pacer {
	c := e.cfg
	total := c.Warmup + c.Duration
	switch {
	case c.Kind == Ramp:
		warm := &Constant{Rate: c.Steps.From, Duration: c.Warmup}
		return &then{first: warm, second: &RateRamp{Steps: c.Steps, Duration: c.Duration}, offset: c.Warmup}
	case c.Poisson:
		return NewPoisson(c.Rate, total, c.Seed)
	}
	return &Constant{Rate: c.Rate, Duration: total}
}

// scheduledIn counts the requests cfg's pacer makes due in the measured
// window: for Poisson arrivals, the draw the run itself makes, as far as
// remaining walks it before ctx ends or its budget runs out.
func scheduledIn(ctx context.Context, cfg Config) int64 {
	e := &engine{cfg: cfg}
	p := e.pacer()
	due, ok := p.Next()
	if !ok {
		return 0
	}
	return e.remaining(ctx, due, p)
}

// then runs one pacer and, after it, another shifted by offset (a ramp
// after its warm-up); both count what they have left, and so does then.
type then struct {
	first, second countingPacer
	offset        time.Duration
}

func (t *then) Next() (time.Duration, bool) {
	if t.first != nil {
		if due, ok := t.first.Next(); ok {
			return due, true
		}
		t.first = nil
	}
	due, ok := t.second.Next()
	return due + t.offset, ok
}

// Left counts both pacers' due times left.
func (t *then) Left(from time.Duration) int64 {
	var n int64
	if t.first != nil {
		n = t.first.Left(from)
	}
	return n + t.second.Left(from-t.offset)
}

func (e *engine) result(c *collector, cpu time.Duration) *Result {
	t := c.total
	r := &Result{
		Requests: t.requests, Errors: t.errors(), Good: t.withinSLA, ErrorsByClass: map[string]int64{},
		Elapsed: time.Duration(t.lastEndNs), Latency: t.hist, Series: c.series, ClientCPU: cpu, NotSent: e.notSent,
		Sent: e.sent.Load(), SentOnTime: e.onTime.Load(), FirstMessage: t.first, Messages: t.messages,
	}
	if e.win.open {
		r.Uncorrected, r.Lateness = t.raw, c.late
	}
	for i, n := range t.classes {
		r.ErrorsByClass[Class(i).String()] = n
	}
	// The steps reached, not every step of the ramp: a ramp of 10^12
	// steps runs only a few of them.
	reached := make([]int, 0, len(c.steps))
	for i := range c.steps {
		reached = append(reached, i)
	}
	sort.Ints(reached)
	for _, i := range reached {
		b := c.steps[i]
		st := results.Step{Value: e.cfg.Steps.value(i), Requests: b.requests, Errors: b.errors(), Latency: stats.Summarize(b.hist)}
		st.RPS = float64(b.requests-b.failed()) / e.cfg.Steps.Every.Seconds()
		st.GoodRPS = float64(b.withinSLA) / e.cfg.Steps.Every.Seconds()
		if b.requests > 0 {
			st.WithinSLA = float64(b.withinSLA) / float64(b.requests)
		}
		r.Steps = append(r.Steps, st)
	}
	return r
}
