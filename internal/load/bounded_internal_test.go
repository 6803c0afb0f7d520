package load

import (
	"context"
	"testing"
	"time"
)

// scheduled is scheduledIn without a context to end it, as the tests of
// what a pacer schedules call it.
func scheduled(cfg Config) int64 { return scheduledIn(context.Background(), cfg) }

// walk counts what p has left at or after from by calling Next: the
// reference the arithmetic is held to.
func walk(p Pacer, from time.Duration) int64 {
	var n int64
	for due, ok := p.Next(); ok; due, ok = p.Next() {
		if due >= from {
			n++
		}
	}
	return n
}

// The arithmetic counts agree with a walk of the pacer to the request,
// from the start and from part-way, for rates whose gaps are not whole
// nanoseconds.
func TestPacersCountWhatTheyHaveLeftAsTheyWouldSendIt(t *testing.T) {
	steps := Steps{From: 700, To: 3100, Step: 333, Every: 70 * time.Millisecond}
	for _, c := range []struct {
		name string
		make func() countingPacer
	}{
		{"constant 1000/s", func() countingPacer {
			return &Constant{Rate: 1000, Duration: time.Second}
		}},
		{"constant 3/7 per ns", func() countingPacer {
			return &Constant{Rate: 3e9 / 7, Duration: time.Millisecond}
		}},
		{"constant 1e12/s", func() countingPacer {
			return &Constant{Rate: 1e12, Duration: 3 * time.Microsecond}
		}},
		{"ramp", func() countingPacer {
			return &RateRamp{Steps: steps, Duration: 900 * time.Millisecond}
		}},
		{"warm-up then ramp", func() countingPacer {
			return &then{first: &Constant{Rate: 700, Duration: 130 * time.Millisecond}, second: &RateRamp{Steps: steps, Duration: 500 * time.Millisecond}, offset: 130 * time.Millisecond}
		}},
	} {
		for _, taken := range []int{0, 1, 37, 501} {
			for _, from := range []time.Duration{0, 130 * time.Millisecond, 333333} {
				p, q := c.make(), c.make()
				for range taken {
					p.Next()
					q.Next()
				}
				if got, want := p.Left(from), walk(q, from); got != want {
					t.Errorf("%s, %d taken, from %v: Left %d, a walk %d", c.name, taken, from, got, want)
				}
			}
		}
	}
}

// At 10^12 requests/s the requests not sent are counted at once, where a
// walk of them took minutes; a Poisson walk, which has no arithmetic,
// stops at its budget or its context and estimates the rest.
func TestCountingRequestsLeftIsBoundedInTime(t *testing.T) {
	cfg := Config{Kind: Rate, Rate: 1e12, Duration: 2 * time.Second, Warmup: time.Second}
	began := time.Now()
	if n := scheduled(cfg); n != 2e12 {
		t.Errorf("constant 1e12/s for 2s: %d scheduled", n)
	}
	// Microseconds of work here; the bound only tells it from a walk of
	// two trillion due times, which took minutes.
	if took := time.Since(began); took > 10*time.Second {
		t.Errorf("counting a constant rate took %v", took)
	}

	cfg.Poisson = true
	began = time.Now()
	n := scheduled(cfg)
	if took := time.Since(began); took > walkBudget+10*time.Second {
		t.Errorf("counting Poisson arrivals took %v, past the budget of %v", took, walkBudget)
	}
	if n < 1.99e12 || n > 2.01e12 {
		t.Errorf("Poisson 1e12/s for 2s: %d scheduled, want about 2e12", n)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	began = time.Now()
	scheduledIn(ctx, cfg)
	if took := time.Since(began); took > walkBudget*3/5 {
		t.Errorf("counting under an ended context took %v, near the walk's budget of %v", took, walkBudget)
	}
}
