// Package load is hopbench's load generator: pacers say when requests are
// due, workers only execute them, and latency is recorded from the intended
// send time so that a slow server cannot hide its tail.
package load

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"
)

// Pacer schedules an open-loop load. Next returns when the next request is
// due, as an offset from the start; ok is false when no request is left
// before the end. A Pacer is used by one goroutine.
type Pacer interface {
	Next() (due time.Duration, ok bool)
}

// Constant is a fixed rate: request n is due at n/rate, computed from n so
// rounding never accumulates.
type Constant struct {
	Rate     float64 // requests per second
	Duration time.Duration
	n        int64
}

func (c *Constant) Next() (time.Duration, bool) {
	due := c.dueAt(c.n)
	if due >= c.Duration {
		return 0, false
	}
	c.n++
	return due, true
}

func (c *Constant) dueAt(n int64) time.Duration {
	return time.Duration(float64(n) * float64(time.Second) / c.Rate)
}

// Left counts the due times at or after from that Next has yet to return,
// by arithmetic: at a rate of 10^12 a walk of them would take minutes.
func (c *Constant) Left(from time.Duration) int64 {
	return max(0, c.index(c.Duration)-max(c.n, c.index(from)))
}

// index is the first request due at or after t: found by bisection on
// dueAt itself, so that it agrees with Next to the nanosecond.
func (c *Constant) index(t time.Duration) int64 {
	if t <= 0 {
		return 0
	}
	hi := int64(math.Ceil(t.Seconds()*c.Rate)) + 1
	for c.dueAt(hi) < t {
		hi *= 2
	}
	return int64(sort.Search(int(hi), func(n int) bool { return c.dueAt(int64(n)) >= t }))
}

// Poisson is a rate with exponentially distributed gaps, as independent
// callers make; seeded, so a run can be repeated exactly.
type Poisson struct {
	Rate     float64
	Duration time.Duration
	rng      *rand.Rand
	due      float64 // seconds
}

// NewPoisson returns a Poisson pacer drawing from seed.
func NewPoisson(rate float64, d time.Duration, seed uint64) *Poisson {
	return &Poisson{Rate: rate, Duration: d, rng: rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))}
}

func (p *Poisson) Next() (time.Duration, bool) {
	due := time.Duration(p.due * float64(time.Second))
	if due >= p.Duration {
		return 0, false
	}
	p.due += p.rng.ExpFloat64() / p.Rate
	return due, true
}

// ExpectedLeft is how many due times at or after from Next would return,
// on average over the draws: for a count whose walk was cut short.
func (p *Poisson) ExpectedLeft(from time.Duration) float64 {
	next := time.Duration(p.due * float64(time.Second))
	if next >= p.Duration {
		return 0
	}
	var n float64
	if next >= from {
		n = 1 // drawn already: the next due time
	}
	return n + p.Rate*(p.Duration-max(next, from)).Seconds()
}

// Steps is a ramp: a value (a rate, or a number of clients) that starts at
// From and rises by Step every Every up to To, where it stays until the
// end. The five-technology study ramped 10 to 200 clients, +10 every 30 s.
type Steps struct {
	From, To, Step float64
	Every          time.Duration
}

// Validate checks the ramp's fields.
func (s Steps) Validate() error {
	switch {
	case s.From <= 0 || s.To < s.From:
		return fmt.Errorf("ramp from %v to %v: want 0 < from <= to", s.From, s.To)
	case s.Step <= 0 && s.To > s.From:
		return fmt.Errorf("ramp step %v: want a positive step", s.Step)
	case s.Every <= 0:
		return fmt.Errorf("ramp every %v: want a positive interval", s.Every)
	}
	return nil
}

// StepAt is the index of the step in force at t.
func (s Steps) StepAt(t time.Duration) int {
	return min(int(t/s.Every), s.steps()-1)
}

// ValueAt is the value in force at t.
func (s Steps) ValueAt(t time.Duration) float64 { return s.value(s.StepAt(t)) }

func (s Steps) value(step int) float64 { return min(s.From+float64(step)*s.Step, s.To) }

func (s Steps) steps() int {
	if s.Step <= 0 {
		return 1
	}
	return int(math.Ceil((s.To-s.From)/s.Step)) + 1
}

// Duration is how long the ramp takes to reach and hold its top for one
// interval: every step once.
func (s Steps) Duration() time.Duration { return time.Duration(s.steps()) * s.Every }

// RateRamp is an open-loop rate rising in Steps; within a step requests are
// evenly spaced at that step's rate.
type RateRamp struct {
	Steps    Steps
	Duration time.Duration
	step     int
	inStep   int64
}

func (r *RateRamp) Next() (time.Duration, bool) {
	for {
		start := time.Duration(r.step) * r.Steps.Every
		if start >= r.Duration {
			return 0, false
		}
		rate := r.Steps.value(min(r.step, r.Steps.steps()-1))
		due := start + time.Duration(float64(r.inStep)*float64(time.Second)/rate)
		last := r.step >= r.Steps.steps()-1 // the top holds to the end
		if !last && due >= start+r.Steps.Every {
			r.step, r.inStep = r.step+1, 0
			continue
		}
		if due >= r.Duration {
			return 0, false
		}
		r.inStep++
		return due, true
	}
}

// Left counts the due times at or after from that Next has yet to return:
// step by step, each step a constant rate counted by arithmetic.
func (r *RateRamp) Left(from time.Duration) int64 {
	var n int64
	for step := r.step; ; step++ {
		start := time.Duration(step) * r.Steps.Every
		if start >= r.Duration {
			return n
		}
		last := step >= r.Steps.steps()-1
		end := r.Duration
		if !last {
			end = min(end, start+r.Steps.Every)
		}
		seg := Constant{Rate: r.Steps.value(step), Duration: end - start}
		if step == r.step {
			seg.n = r.inStep
		}
		n += seg.Left(from - start)
		if last {
			return n
		}
	}
}
