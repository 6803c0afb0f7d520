package network

import (
	"testing"
	"time"
)

// sleepUntil never returns before its time, however early its timer is
// set: the emulated delay is a floor, as a wire's is.
func TestSleepUntilNeverEndsEarly(t *testing.T) {
	defer lead.Store(lead.Load())
	lead.Store(maxLead) // the timer fires as early as it ever may
	for _, d := range []time.Duration{0, 20 * time.Microsecond, 150 * time.Microsecond, 300 * time.Microsecond, 3 * time.Millisecond} {
		due := time.Now().Add(d)
		sleepUntil(due)
		if early := time.Until(due); early > 0 {
			t.Errorf("a sleep of %v ended %v early", d, early)
		}
	}
}

// lead follows the median of the timers' lateness, one step a timer,
// whatever the outliers, and stays within 0 and maxLead.
func TestLeadLearnsTheMedianLateness(t *testing.T) {
	defer lead.Store(lead.Load())
	lead.Store(0)
	// Lateness 40 µs three times in four, and a 5 ms outlier the fourth:
	// the median is 40 µs.
	for i := range 4000 {
		late := 40 * time.Microsecond
		if i%4 == 3 {
			late = 5 * time.Millisecond
		}
		learnLead(late)
	}
	if got := time.Duration(lead.Load()); got < 39*time.Microsecond || got > 41*time.Microsecond {
		t.Errorf("lead %v after lateness of 40µs with outliers, want 40µs", got)
	}
	for range 4000 {
		learnLead(time.Second)
	}
	if got := lead.Load(); got != maxLead {
		t.Errorf("lead %v after late timers, want held at %v", time.Duration(got), time.Duration(maxLead))
	}
	for range 4000 {
		learnLead(-time.Second)
	}
	if got := lead.Load(); got != 0 {
		t.Errorf("lead %v after early timers, want held at 0", time.Duration(got))
	}
}

// The lead a process starts from (before its first shaped connection, so
// that its first calls are delayed as its last) is measured: timers here
// fire late, never early, and the median is within maxLead.
func TestTheLeadIsMeasuredBeforeTheFirstShapedConnection(t *testing.T) {
	l, ok := measureLead()
	if !ok {
		t.Fatal("no timerfd could be had")
	}
	if got := time.Duration(l); got <= 0 || got > time.Duration(maxLead) {
		t.Errorf("lead %v after measuring the timers, want within (0, %v]: no timer fires early", got, time.Duration(maxLead))
	}
}

// A lead learnt at its largest (a busy moment) comes down over lan-sized
// waits, shorter than it: each still sets a timer, three quarters of the
// wait at most early, and its lateness moves the lead.
func TestALargeLeadComesDownOverShortWaits(t *testing.T) {
	defer lead.Store(lead.Load())
	lead.Store(maxLead)
	for range 400 {
		sleepUntil(time.Now().Add(100 * time.Microsecond))
	}
	if got := lead.Load(); got > maxLead-int64(50*time.Microsecond) {
		t.Errorf("lead %v after 400 waits of 100µs from %v: stuck", time.Duration(got), time.Duration(maxLead))
	}
}
