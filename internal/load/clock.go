package load

import (
	"context"
	"time"
)

// clock is the engine's time: when it is, and waiting until a time. A run
// uses the system's; a test of the engine's timing gives one of its own
// (Config.clock) so that it need not sleep through the load it checks.
type clock interface {
	Now() time.Time
	// SleepUntil waits until at; it is false when ctx ended first.
	SleepUntil(ctx context.Context, at time.Time) bool
}

// systemClock is the time of the system (or of a testing/synctest bubble).
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) SleepUntil(ctx context.Context, at time.Time) bool {
	d := time.Until(at)
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
