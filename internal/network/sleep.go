package network

import (
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// sleepUntil waits until t, and never returns before it. Go's timers wake
// up to a millisecond late when the process is idle (the netpoller waits
// in whole milliseconds), and a chain of five pays ten delays: so a timer
// takes the wait to within preciseWait of t and a timerfd, read through
// the netpoller (the goroutine parks, and its thread's P stays free for
// the others, as a nanosleep's would not), times the rest. A virtual
// machine's timer interrupts come late, by 40 to 55 µs on the two-core VM
// this is developed on, and a round trip pays that twice: 100 µs on lan's
// 200. So the timerfd is set lead early, lead being the median of how
// late the ones before it fired, and the goroutine yields its thread until
// t for what remains (a few µs in the median; at most lead, or three
// quarters of the wait): the delays emulated are the profile's, whatever
// the machine, at a small cost in CPU.
func sleepUntil(t time.Time) {
	wait := time.Until(t)
	if wait > preciseWait {
		time.Sleep(wait - preciseWait)
		wait = time.Until(t)
	}
	if wait >= minTimed {
		// Never more than three quarters of the wait early: every
		// timed wait keeps sampling the lateness, so a lead learnt on
		// a busy moment comes down again instead of leaving every wait
		// to the yield.
		ask := max(wait-time.Duration(lead.Load()), wait/4)
		start := time.Now()
		if !precise(ask) {
			time.Sleep(time.Until(t))
			return
		}
		learnLead(time.Since(start) - ask)
	}
	for time.Now().Before(t) {
		runtime.Gosched()
	}
}

const (
	preciseWait = 2 * time.Millisecond
	// minTimed is the shortest wait a timer is set for: a shorter one is
	// yielded away.
	minTimed = 10 * time.Microsecond
)

// timers are timerfds, non-blocking and so read through the netpoller.
var timers = sync.Pool{New: func() any {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil
	}
	return os.NewFile(uintptr(fd), "timerfd")
}}

// precise sleeps d on a timerfd; false when none could be had.
func precise(d time.Duration) bool {
	f, _ := timers.Get().(*os.File)
	if f == nil {
		return false
	}
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(d.Nanoseconds())}
	if unix.TimerfdSettime(int(f.Fd()), 0, &spec, nil) != nil {
		f.Close()
		return false
	}
	var buf [8]byte
	_, err := f.Read(buf[:])
	if err != nil {
		f.Close()
		return false
	}
	timers.Put(f)
	return true
}

// lead is how early a timer is set to fire, in nanoseconds: the running
// median of its lateness, first measured by learnLeadOnce and then moved
// leadStep toward each timer's (a stochastic estimate of the median,
// which outliers cannot drag), held within maxLead.
var lead atomic.Int64

// learnLeadOnce times leadProbes timers of leadProbe before the first
// shaped connection or socket of the process, so that its first calls,
// and the round trips a run measures before its figures, are delayed as
// much as its last.
var learnLeadOnce = sync.OnceFunc(func() {
	if l, ok := measureLead(); ok {
		lead.Store(l)
	}
})

// measureLead is the median lateness of leadProbes timers, within maxLead.
func measureLead() (int64, bool) {
	late := make([]time.Duration, 0, leadProbes)
	for range leadProbes {
		start := time.Now()
		if !precise(leadProbe) {
			return 0, false
		}
		late = append(late, time.Since(start)-leadProbe)
	}
	slices.Sort(late)
	return min(max(int64(late[len(late)/2]), 0), maxLead), true
}

const (
	leadProbes = 21
	leadProbe  = 50 * time.Microsecond
	leadStep   = int64(500 * time.Nanosecond)
	maxLead    = int64(200 * time.Microsecond)
)

func learnLead(late time.Duration) {
	l := lead.Load()
	switch {
	case int64(late) > l && l < maxLead:
		lead.CompareAndSwap(l, l+leadStep)
	case int64(late) < l && l > 0:
		lead.CompareAndSwap(l, l-leadStep)
	}
}
