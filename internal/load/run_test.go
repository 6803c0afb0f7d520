package load_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/rest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// virtual runs a test on a fake clock (testing/synctest): the engine's
// time.Now and timers, and the calls' sleeps, read it, and it moves on
// only when every goroutine of the test waits. A test of a 3 s load takes
// milliseconds and its timings are exact; the engine's code is the code a
// run uses. TestClosedLoopCountsEveryRequest and the tests that cross a
// socket keep real time.
func virtual(t *testing.T, f func(t *testing.T)) { synctest.Test(t, f) }

func sleeper(d time.Duration) func() load.Call {
	return func() load.Call {
		return func(ctx context.Context) error {
			select {
			case <-time.After(d):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
}

func TestClosedLoopCountsEveryRequest(t *testing.T) {
	var calls atomic.Int64
	newCall := func() load.Call {
		return func(context.Context) error { calls.Add(1); time.Sleep(time.Millisecond); return nil }
	}
	r, err := load.Run(context.Background(), load.Config{Kind: load.Closed, Clients: 3, Requests: 50, Warmup: 50 * time.Millisecond}, newCall)
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests != 50 || r.Errors != 0 || r.Latency.TotalCount() != 50 {
		t.Fatalf("requests %d errors %d recorded %d, want 50 0 50", r.Requests, r.Errors, r.Latency.TotalCount())
	}
	if calls.Load() <= 50 {
		t.Errorf("%d calls: the warm-up made none", calls.Load())
	}
	if p50 := r.Latency.ValueAtQuantile(50); p50 < 1000 {
		t.Errorf("p50 %dµs for calls of at least 1ms", p50)
	}
	var inSeries int64
	for _, s := range r.Series {
		inSeries += s.Requests
	}
	if inSeries != 50 || r.RPS() <= 0 {
		t.Errorf("series holds %d requests, rps %v", inSeries, r.RPS())
	}
}

func TestErrorsAreClassified(t *testing.T) {
	cases := []struct {
		err  error
		want load.Class
	}{
		{transport.Errorf(transport.CodeUnavailable, "dial: %w", syscall.ECONNREFUSED), load.ClassRefused},
		{transport.Errorf(transport.CodeDeadline, "slow"), load.ClassTimeout},
		{fmt.Errorf("call: %w", context.DeadlineExceeded), load.ClassTimeout},
		{transport.Errorf(transport.CodeInternal, "boom"), load.ClassApplication},
		{transport.Errorf(transport.CodeTooLarge, "big"), load.ClassApplication},
		{errors.New("proto: cannot parse reply"), load.ClassProtocol},
	}
	for _, c := range cases {
		if got := load.Classify(c.err); got != c.want {
			t.Errorf("Classify(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

func TestTimeoutsAndSLA(t *testing.T) {
	virtual(t, func(t *testing.T) {
		r, err := load.Run(context.Background(), load.Config{Kind: load.Closed, Clients: 2, Duration: time.Second,
			Timeout: 200 * time.Millisecond, SLA: 50 * time.Millisecond}, sleeper(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if r.ErrorsByClass["timeout"] < 4 || r.Errors != r.Requests {
			t.Fatalf("%d requests, errors %v: want only timeouts", r.Requests, r.ErrorsByClass)
		}
		if p50 := r.Latency.ValueAtQuantile(50); p50 < 200_000 || p50 > 2_000_000 {
			t.Errorf("timed-out calls recorded at %dµs, want their time until the timeout", p50)
		}
		r, err = load.Run(context.Background(), load.Config{Kind: load.Closed, Clients: 1, Requests: 5,
			SLA: time.Millisecond}, sleeper(5*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		if r.ErrorsByClass["over_sla"] != 5 {
			t.Errorf("errors %v: want 5 over the SLA", r.ErrorsByClass)
		}
	})
}

func TestStoppingReturnsWhatWasMeasured(t *testing.T) {
	virtual(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		r, err := load.Run(ctx, load.Config{Kind: load.Rate, Rate: 200, Duration: time.Hour}, sleeper(time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		if time.Since(start) > 5*time.Second || r.Requests == 0 || r.Errors != 0 {
			t.Fatalf("after %v: %d requests, %d errors", time.Since(start), r.Requests, r.Errors)
		}
	})
}

func TestClientRampAddsClientsPerStep(t *testing.T) {
	virtual(t, func(t *testing.T) {
		var inFlight, peak atomic.Int64
		newCall := func() load.Call {
			return func(context.Context) error {
				n := inFlight.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				time.Sleep(2 * time.Millisecond)
				inFlight.Add(-1)
				return nil
			}
		}
		cfg := load.Config{Kind: load.Ramp, RampOf: "clients", Steps: load.Steps{From: 1, To: 3, Step: 1, Every: time.Second}}
		r, err := load.Run(context.Background(), cfg, newCall)
		if err != nil {
			t.Fatal(err)
		}
		if peak.Load() != 3 || len(r.Steps) != 3 {
			t.Fatalf("peak %d clients, %d steps; want 3 and 3", peak.Load(), len(r.Steps))
		}
		for i, s := range r.Steps {
			if s.Value != float64(i+1) || s.Requests == 0 || s.WithinSLA != 1 {
				t.Errorf("step %d: %+v", i, s)
			}
		}
	})
}

func TestRateRampRaisesTheRate(t *testing.T) {
	virtual(t, func(t *testing.T) {
		cfg := load.Config{Kind: load.Ramp, RampOf: "rate", Steps: load.Steps{From: 50, To: 150, Step: 100, Every: time.Second}}
		r, err := load.Run(context.Background(), cfg, sleeper(0))
		if err != nil {
			t.Fatal(err)
		}
		// The pacer issues 50 then 150 requests; a few may end across a step
		// boundary, so counts are checked loosely and the total exactly.
		if len(r.Steps) != 2 || r.Requests != 200 || r.Steps[1].Requests < 2*r.Steps[0].Requests {
			t.Fatalf("%d requests in steps %+v", r.Requests, r.Steps)
		}
		if r.Uncorrected == nil {
			t.Fatal("an open loop keeps no uncorrected latency")
		}
	})
}

// A server that stalls 200ms once per second, driven at 1 000 req/s over
// one connection: the corrected latency shows the requests that queued
// behind the stall; the uncorrected latency, what most tools report,
// hides them. The engine runs on a fake clock that the server moves on by
// its stalls: the calls cross a real socket, and the 3 s load takes as
// long as its 3 000 calls, its figures exact however loaded the machine.
func TestCoordinatedOmissionIsCorrected(t *testing.T) {
	clock := load.NewFakeClock()
	var mu sync.Mutex
	var lastStall time.Time
	stalling := func(_ context.Context, req *transport.Request) ([]byte, error) {
		mu.Lock()
		defer mu.Unlock()
		if now := clock.Now(); now.Sub(lastStall) >= time.Second {
			lastStall = now
			clock.Advance(200 * time.Millisecond)
		}
		return req.Body, nil
	}
	tr, _ := transport.Lookup("rest")
	st, _ := transport.ParseStack("rest")
	srv, err := tr.Listen(context.Background(), "127.0.0.1:0", st.Config(), transport.Handler{Bytes: stalling})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	target, err := load.DialTarget(context.Background(), load.TargetConfig{Stack: st, Addr: srv.Addr(), Op: transport.OpEcho, Model: "int", Count: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	cfg := load.WithClock(load.Config{Kind: load.Rate, Rate: 1000, Workers: 1, Duration: 3 * time.Second}, clock)
	r, err := load.Run(context.Background(), cfg, target.NewCall)
	if err != nil {
		t.Fatal(err)
	}
	corrected, uncorrected := r.Latency.ValueAtQuantile(99), r.Uncorrected.ValueAtQuantile(99)
	t.Logf("%d requests: p99 corrected %dµs, uncorrected %dµs", r.Requests, corrected, uncorrected)
	if r.Requests != 3000 || r.Errors != r.ErrorsByClass["over_sla"] {
		t.Fatalf("%d requests, errors %v; want 3000", r.Requests, r.ErrorsByClass)
	}
	// Three stalls of 200 ms each leave about 200 requests queued behind
	// them, a tenth of them 100 ms late or more.
	if corrected < 100_000 {
		t.Errorf("corrected p99 %dµs, want at least 100ms", corrected)
	}
	// Only one request a second meets a stall (0.1 %), so the uncorrected
	// p99 never sees one. On the fake clock a call takes no time but the
	// dispatcher's wait for the next due request, at most one gap (1 ms).
	if uncorrected > 1_001 {
		t.Errorf("uncorrected p99 %dµs, want at most one gap of 1ms", uncorrected)
	}
}

// Goodput counts replies within the SLA: a run whose every reply is late
// carried requests, and no good ones.
func TestGoodputCountsOnlyRepliesWithinTheSLA(t *testing.T) {
	virtual(t, func(t *testing.T) {
		cfg := load.Config{Kind: load.Ramp, RampOf: "clients", Steps: load.Steps{From: 2, To: 2, Every: time.Second}, SLA: 5 * time.Millisecond}
		late, err := load.Run(context.Background(), cfg, sleeper(15*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		if late.Requests == 0 || late.RPS() == 0 || late.Good != 0 || late.GoodRPS() != 0 {
			t.Fatalf("all late: %d requests at %.0f/s, %d good at %.1f/s; want requests and no good ones", late.Requests, late.RPS(), late.Good, late.GoodRPS())
		}
		if len(late.Steps) != 1 || late.Steps[0].RPS == 0 || late.Steps[0].GoodRPS != 0 {
			t.Fatalf("all late, per step: %+v", late.Steps)
		}
		cfg.SLA = time.Second
		good, err := load.Run(context.Background(), cfg, sleeper(15*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		if good.Good != good.Requests || good.GoodRPS() != good.RPS() || good.Steps[0].GoodRPS != good.Steps[0].RPS {
			t.Fatalf("all in time: %d of %d good, %.1f of %.1f/s, step %+v", good.Good, good.Requests, good.GoodRPS(), good.RPS(), good.Steps[0])
		}
	})
}

// A service that refuses every call at once cannot make a closed loop mint
// requests: each worker backs off, up to 100 ms, and rps counts replies.
func TestRefusedCallsAreBackedOffAndAreNoThroughput(t *testing.T) {
	virtual(t, func(t *testing.T) {
		refused := func() load.Call {
			return func(context.Context) error {
				return transport.Errorf(transport.CodeUnavailable, "dial: %v", syscall.ECONNREFUSED)
			}
		}
		r, err := load.Run(context.Background(), load.Config{Kind: load.Closed, Clients: 4, Duration: time.Second}, refused)
		if err != nil {
			t.Fatal(err)
		}
		// Without backoff this is millions; with it, about 4 × (8 + 9) calls.
		if r.Requests > 200 || r.Errors != r.Requests || r.ErrorsByClass["refused"] != r.Requests {
			t.Errorf("%d calls, %d errors (%v) in a second of refusals from 4 workers", r.Requests, r.Errors, r.ErrorsByClass)
		}
		if r.RPS() != 0 || r.ErrorRPS() <= 0 {
			t.Errorf("rps %v, error rps %v: refused calls are not throughput", r.RPS(), r.ErrorRPS())
		}
	})
}

// Calls in flight when the run is cut because the service died failed for
// it; calls in flight when the user stops the run say nothing and are not
// counted.
func TestCallsCutOffByADeathAreErrors(t *testing.T) {
	died := fmt.Errorf("node exited (%w)", load.ErrServiceDied)
	for _, c := range []struct {
		name   string
		cancel func(context.CancelCauseFunc)
		want   int64
	}{
		{"death", func(cancel context.CancelCauseFunc) { cancel(died) }, 3},
		{"interrupt", func(cancel context.CancelCauseFunc) { cancel(nil) }, 0},
		// signal.NotifyContext's cause is its own error, not
		// context.Canceled: Ctrl-C once counted every call in flight.
		{"signal", func(cancel context.CancelCauseFunc) { cancel(errors.New("interrupt signal received")) }, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			var started sync.WaitGroup
			started.Add(3)
			hang := func() load.Call {
				return func(ctx context.Context) error { started.Done(); <-ctx.Done(); return ctx.Err() }
			}
			go func() { started.Wait(); c.cancel(cancel) }()
			r, err := load.Run(ctx, load.Config{Kind: load.Closed, Clients: 3, Duration: 10 * time.Second}, hang)
			if err != nil {
				t.Fatal(err)
			}
			if r.Requests != c.want || r.ErrorsByClass["refused"] != c.want {
				t.Errorf("%d calls recorded (%v), want %d refused", r.Requests, r.ErrorsByClass, c.want)
			}
		})
	}
}

// An open loop far beyond what its workers can send ends soon after its
// window: requests still waiting then are counted as not sent, never sent
// late for ever.
func TestAnOpenLoopBehindItsRateEndsAndCountsWhatItNeverSent(t *testing.T) {
	virtual(t, func(t *testing.T) {
		began := time.Now()
		r, err := load.Run(context.Background(), load.Config{Kind: load.Rate, Rate: load.MaxRate, Workers: 1, Duration: time.Second, SLA: 100 * time.Millisecond}, sleeper(10*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		if took := time.Since(began); took > 4*time.Second {
			t.Errorf("a 1 s window at %d req/s took %v", load.MaxRate, took)
		}
		if sent := r.Requests; r.NotSent < load.MaxRate-1000 || sent+r.NotSent > load.MaxRate {
			t.Errorf("%d sent and %d not sent of %d due", sent, r.NotSent, load.MaxRate)
		}
		for _, cfg := range []load.Config{{Kind: load.Rate, Rate: 1e12, Duration: time.Second}, {Kind: load.Closed, Clients: 100_000_000, Duration: time.Second}} {
			if err := cfg.Validate(); err == nil {
				t.Errorf("%s accepted", cfg.String())
			}
		}
	})
}

// An open loop's request handed to a free worker before its due time is
// sent at its due time, and its latency is the call's alone: the
// hand-off is not the service's. A request that waits for a worker the
// service kept busy is charged the wait, which is not the generator's
// lateness. Both on a virtual clock, so the figures are exact.
func TestAnOpenLoopChargesTheServiceNotTheGenerator(t *testing.T) {
	virtual(t, func(t *testing.T) {
		cfg := load.Config{Kind: load.Rate, Rate: 1000, Workers: 4, Duration: 2 * time.Second}
		r, err := load.Run(t.Context(), cfg, sleeper(100*time.Microsecond))
		if err != nil {
			t.Fatal(err)
		}
		if r.Requests != 2000 || r.Lateness == nil || r.Lateness.TotalCount() != 2000 {
			t.Fatalf("%d requests, lateness %v; want 2000, each with its lateness", r.Requests, r.Lateness)
		}
		if c, u, l := r.Latency.ValueAtQuantile(99), r.Uncorrected.ValueAtQuantile(99), r.Lateness.Max(); c != u || c > 101 || l > 1 {
			t.Errorf("idle: p99 corrected %dµs, uncorrected %dµs, lateness max %dµs; want the call's 100µs both, no lateness", c, u, l)
		}
		busy := load.Config{Kind: load.Rate, Rate: 1000, Workers: 1, Duration: 2 * time.Second}
		r, err = load.Run(t.Context(), busy, sleeper(1500*time.Microsecond))
		if err != nil {
			t.Fatal(err)
		}
		if c, u, l := r.Latency.ValueAtQuantile(50), r.Uncorrected.ValueAtQuantile(50), r.Lateness.ValueAtQuantile(99); c < 10*u || l > 1 {
			t.Errorf("busy: p50 corrected %dµs, uncorrected %dµs, lateness p99 %dµs; want the queue charged, no generator lateness", c, u, l)
		}
	})
}

// Every second of the series has its latency, however seldom each worker
// calls: a slow rate spread over many workers, and slow calls from many
// clients, would otherwise leave a worker holding its samples of a second
// until its next call, after the collector had closed that second.
func TestEverySecondOfASlowLoadHasItsLatency(t *testing.T) {
	virtual(t, func(t *testing.T) {
		for _, cfg := range []load.Config{
			{Kind: load.Rate, Rate: 5, Workers: 256, Duration: 8 * time.Second},
			{Kind: load.Closed, Clients: 40, Duration: 8 * time.Second},
		} {
			var n atomic.Int64 // each worker's calls of its own length, 1.1 to 2.9 s
			newCall := func() load.Call { return sleeper(time.Second + time.Duration(n.Add(1)%10)*200*time.Millisecond)() }
			r, err := load.Run(t.Context(), cfg, newCall)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range r.Series {
				if s.Requests > 0 && (s.P50Us == 0 || s.Late > 0) {
					t.Errorf("%s: second %d: %d requests, %d of them filed after it closed, p50 %dµs", cfg.Kind, s.T, s.Requests, s.Late, s.P50Us)
				}
			}
		}
	})
}
