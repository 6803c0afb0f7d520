package load

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hopbench/hopbench/internal/stats"
)

// watchdog ends calls that run past the timeout. It looks every tenth of
// the timeout (at most every 100ms) instead of arming a timer per call, so
// a call costs the generator no allocation; a call may therefore run up to
// a tenth over its timeout before it is ended. It looks on the system's
// time, and judges a call's age on the engine's clock, which sent it.
type watchdog struct {
	timeout time.Duration
	clock   clock
	mu      sync.Mutex
	slots   []*slot
}

func newWatchdog(timeout time.Duration, c clock) *watchdog {
	return &watchdog{timeout: timeout, clock: c}
}

// slot is one worker's place under the watchdog.
type slot struct {
	mu      sync.Mutex
	started time.Time // send time of the call in flight; zero when idle
	ctx     context.Context
	cancel  context.CancelCauseFunc
}

func (w *watchdog) slot() *slot {
	s := &slot{}
	w.mu.Lock()
	w.slots = append(w.slots, s)
	w.mu.Unlock()
	return s
}

func (w *watchdog) run(ctx context.Context) {
	tick := time.NewTicker(min(w.timeout/10, 100*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			w.mu.Lock()
			slots := w.slots
			w.mu.Unlock()
			now := w.clock.Now()
			for _, s := range slots {
				s.expire(now, w.timeout)
			}
		}
	}
}

// inFlight counts the calls under way now: sampled once a second for
// live metrics, it costs the calls nothing.
func (w *watchdog) inFlight() int {
	w.mu.Lock()
	slots := w.slots
	w.mu.Unlock()
	n := 0
	for _, s := range slots {
		s.mu.Lock()
		if !s.started.IsZero() {
			n++
		}
		s.mu.Unlock()
	}
	return n
}

func (s *slot) expire(now time.Time, timeout time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started.IsZero() && now.Sub(s.started) > timeout {
		s.cancel(errTimedOut)
	}
}

// call makes one call under the watchdog. The slot's context is reused
// from call to call and replaced only after the watchdog has ended one.
func (s *slot) call(parent context.Context, call Call, sent time.Time) error {
	s.mu.Lock()
	if s.ctx == nil || s.ctx.Err() != nil {
		s.ctx, s.cancel = context.WithCancelCause(parent)
	}
	ctx := s.ctx
	s.started = sent
	s.mu.Unlock()
	err := call(ctx)
	s.mu.Lock()
	s.started = time.Time{}
	s.mu.Unlock()
	if err != nil && context.Cause(ctx) == errTimedOut {
		return fmt.Errorf("%w: %w", errTimedOut, err)
	}
	return err
}

// cpuMark samples this process's CPU time when the measured window opens.
type cpuMark struct {
	ready chan struct{}
	at    time.Duration
}

func cpuAt(ctx context.Context, c clock, start time.Time, atStart func()) *cpuMark {
	m := &cpuMark{ready: make(chan struct{})}
	go func() {
		c.SleepUntil(ctx, start)
		if atStart != nil {
			atStart()
		}
		m.at = stats.SelfCPU()
		close(m.ready)
	}()
	return m
}

// since is the CPU time used from the mark until now.
func (m *cpuMark) since() time.Duration {
	<-m.ready
	return stats.SelfCPU() - m.at
}
