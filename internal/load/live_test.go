package load_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/transport"
)

// ticks collects what Config.Live hears.
type ticks struct {
	mu  sync.Mutex
	all []load.Tick
}

func (k *ticks) add(t load.Tick) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.all = append(k.all, t)
}

// Live metrics' ticks add up to what the load measured: every request,
// error and latency in exactly one tick; each second closed says the rate
// due in it and the calls in flight.
func TestLiveTicksAddUpToTheResult(t *testing.T) {
	virtual(t, func(t *testing.T) {
		var n atomic.Int64
		newCall := func() load.Call {
			return func(ctx context.Context) error {
				i := n.Add(1)
				select {
				case <-time.After(2 * time.Millisecond):
				case <-ctx.Done():
					return ctx.Err()
				}
				if i%10 == 0 {
					return transport.Errorf(transport.CodeInternal, "boom")
				}
				return nil
			}
		}
		var k ticks
		cfg := load.Config{Kind: load.Rate, Rate: 200, Duration: 3 * time.Second, Warmup: 500 * time.Millisecond, Live: k.add}
		r, err := load.Run(context.Background(), cfg, newCall)
		if err != nil {
			t.Fatal(err)
		}
		var reqs, errs int64
		var byClass load.ClassCounts
		var latencies, within uint64
		closed := 0
		for _, tk := range k.all {
			reqs, errs = reqs+tk.Requests, errs+tk.Errors
			for i, c := range tk.ByClass {
				byClass[i] += c
			}
			for i, c := range tk.Latency {
				latencies += c
				if i == 4 { // calls of 2 ms: up to 2.5 ms
					within += c
				}
			}
			if tk.Late == 0 {
				closed++
				if tk.IntendedRate != 200 || tk.InFlight < 0 || tk.InFlight > load.DefaultWorkers {
					t.Errorf("second %d: intended rate %v, %d in flight", tk.T, tk.IntendedRate, tk.InFlight)
				}
			}
		}
		if reqs != r.Requests || errs != r.Errors || latencies != uint64(r.Latency.TotalCount()) || within != latencies || closed != len(r.Series) {
			t.Errorf("ticks: %d requests, %d errors, %d latencies (%d up to 2.5ms), %d seconds; the result: %d, %d, %d, %d",
				reqs, errs, latencies, within, closed, r.Requests, r.Errors, r.Latency.TotalCount(), len(r.Series))
		}
		for i, name := range load.ClassNames() {
			if byClass[i] != r.ErrorsByClass[name] {
				t.Errorf("%s: %d in the ticks, %d in the result", name, byClass[i], r.ErrorsByClass[name])
			}
		}
	})
}

// A closed loop has no rate of its own to say.
func TestAClosedLoopsTicksHaveNoIntendedRate(t *testing.T) {
	virtual(t, func(t *testing.T) {
		var k ticks
		cfg := load.Config{Kind: load.Closed, Clients: 2, Duration: 2 * time.Second, Live: k.add}
		if _, err := load.Run(context.Background(), cfg, sleeper(time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		if len(k.all) < 2 {
			t.Fatalf("%d ticks in 2s", len(k.all))
		}
		for _, tk := range k.all {
			if tk.IntendedRate != 0 || tk.InFlight > 2 {
				t.Errorf("second %d: intended rate %v, %d in flight of 2 clients", tk.T, tk.IntendedRate, tk.InFlight)
			}
		}
	})
}
