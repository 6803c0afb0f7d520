package load_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/load"
)

// instant is a call that returns at once: the generator, not the service,
// is what these loads test.
func instant() load.Call { return func(context.Context) error { return nil } }

// hangBound tells a run that ends late on a busy machine from one that
// does not end: the counts these tests guard took minutes.
const hangBound = 30 * time.Second

// A rate of 10^12 with the rate limit raised to it: cancelled after 200 ms,
// the run returns soon with what it measured (here in well under 2 s; the
// test fails only past hangBound, since a timed test fails on a busy
// machine, and before the fix the run was deaf to its context for minutes).
func TestARunAtAnyRateEndsSoonAfterItIsCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := load.Config{Kind: load.Rate, Rate: 1e12, Limits: load.Limits{Rate: 1e12}, Duration: 2 * time.Second}
	time.AfterFunc(200*time.Millisecond, cancel)
	began := time.Now()
	r, err := load.Run(ctx, cfg, instant)
	took := time.Since(began)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cancelled after 200ms, the run returned after %v", took)
	if took > hangBound {
		t.Errorf("cancelled after 200ms, the run returned after %v", took)
	}
	if r == nil || r.Requests == 0 {
		t.Fatalf("no partial result: %+v", r)
	}
}

// Left to its end, the same rate stops sending a second after its window
// and counts the requests it never sent by arithmetic, where it used to
// walk two trillion due times for minutes.
func TestARunAtAnyRateCountsWhatItDidNotSendAtOnce(t *testing.T) {
	for _, poisson := range []bool{false, true} {
		cfg := load.Config{Kind: load.Rate, Rate: 1e12, Poisson: poisson, Limits: load.Limits{Rate: 1e12}, Duration: 300 * time.Millisecond}
		began := time.Now()
		r, err := load.Run(context.Background(), cfg, instant)
		took := time.Since(began)
		if err != nil {
			t.Fatal(err)
		}
		// The window, the second after it and the budget of a walk: about
		// 1.6 s; walking the due times one by one took minutes.
		t.Logf("poisson %v: a run of 300ms took %v", poisson, took)
		if took > hangBound {
			t.Errorf("poisson %v: a run of 300ms took %v", poisson, took)
		}
		if want := int64(0.29e12); r.NotSent < want {
			t.Errorf("poisson %v: %d not sent of 3e11 due", poisson, r.NotSent)
		}
	}
}

// The timeout is a deadline on every call, whatever the transport does
// with it: a reply that comes after it is counted a timeout, not a
// success, even from a call that ignores its context.
func TestAReplyPastTheTimeoutIsATimeout(t *testing.T) {
	deaf := func() load.Call {
		return func(context.Context) error { time.Sleep(20 * time.Millisecond); return nil }
	}
	cfg := load.Config{Kind: load.Closed, Clients: 2, Duration: 300 * time.Millisecond, Timeout: 5 * time.Millisecond, SLA: time.Second}
	r, err := load.Run(context.Background(), cfg, deaf)
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests == 0 || r.ErrorsByClass["timeout"] != r.Requests || r.Good != 0 {
		t.Errorf("%d requests, %d timeouts, %d good: want every reply past the 5ms timeout counted a timeout", r.Requests, r.ErrorsByClass["timeout"], r.Good)
	}
	cfg.Timeout = time.Second
	if r, err := load.Run(context.Background(), cfg, deaf); err != nil || r.ErrorsByClass["timeout"] != 0 || r.Good != r.Requests {
		t.Errorf("within the timeout: %+v (%v), want every call good", r, err)
	}
}

// A call that fails as the user stops the run (its connection torn down a
// moment before the worker sees the stop: an amqp run counted one such
// refused call a worker) is the interrupt's, not the service's; a call
// that failed while the run went on counts.
func TestACallFailedByTheInterruptIsNotCounted(t *testing.T) {
	for _, c := range []struct {
		name   string
		stop   bool
		errors int64
	}{{"failed as the user stopped it", true, 0}, {"failed, then the run went on", false, 1}} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			calls := 0
			call := func() load.Call {
				return func(ctx context.Context) error {
					switch calls++; {
					case calls > 100 && c.stop:
						<-ctx.Done() // the next call is in flight as the stop lands
						return ctx.Err()
					case calls != 100:
						return nil
					}
					if c.stop {
						time.AfterFunc(time.Millisecond, cancel) // the stop lands after the failure
					}
					return fmt.Errorf("connection closed")
				}
			}
			cfg := load.Config{Kind: load.Closed, Clients: 1, Requests: 200}
			r, err := load.Run(ctx, cfg, call)
			if err != nil {
				t.Fatal(err)
			}
			if r.Errors != c.errors {
				t.Errorf("%d errors of %d calls, want %d", r.Errors, r.Requests, c.errors)
			}
		})
	}
}
