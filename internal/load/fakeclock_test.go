package load

import (
	"context"
	"sync"
	"time"
)

// FakeClock is a clock that moves only when told to: a sleep moves it at
// once to the sleeper's wake time, and Advance moves it on, as a service
// that stalls spends time. An open loop on it runs as fast as its calls
// are made, its dispatcher's waits taking no time, with every figure it
// records exact. It suits loads whose one sleeper is the open loop's
// dispatcher (no warm-up, no closed loop): two sleepers would move it for
// each other.
type FakeClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewFakeClock is a FakeClock at a fixed time.
func NewFakeClock() *FakeClock { return &FakeClock{now: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *FakeClock) SleepUntil(ctx context.Context, at time.Time) bool {
	if ctx.Err() != nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if at.After(c.now) {
		c.now = at
	}
	return true
}

// Advance moves the clock on by d.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
