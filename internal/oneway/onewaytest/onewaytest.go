// Package onewaytest is the conformance suite of one-way messaging that
// every broker stack passes against its real broker: a work queue shared
// by two consumers, a fan-out to three groups, and a consumer that
// crashes mid-run, each message accounted for.
package onewaytest

import (
	"context"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/oneway"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/transport"
)

// Variant is one stack and its settings to check.
type Variant struct {
	Name  string
	Stack string // e.g. nats+proto
	Addr  string // the broker, e.g. nats://127.0.0.1:4222/
	// Options are the stack's delivery settings (transport.Config.Options).
	Options map[string]string
	// AtMostOnce: the settings may lose messages a crashed consumer held,
	// so the crash test checks the accounting adds up, not that nothing
	// was lost. Otherwise nothing may be lost after a crash, and what the
	// consumer took without settling may come again (counted duplicated).
	AtMostOnce bool
}

// Run checks v: nothing lost or duplicated at a steady rate with two
// competing consumers, every group getting every message in a fan-out,
// and a crashed consumer's messages accounted for.
func Run(t *testing.T, v Variant) {
	t.Run(v.Name+"/work-queue", func(t *testing.T) {
		ow := Measure(t, v, oneway.Config{Consumers: 2}, 1000, 2*time.Second)
		CheckNothingLost(t, ow)
		if g := ow.Groups[0]; len(g.PerConsumer) != 2 || g.PerConsumer[0] == 0 || g.PerConsumer[1] == 0 {
			t.Errorf("the two consumers took %v of the messages: want both to take some", g.PerConsumer)
		}
	})
	t.Run(v.Name+"/fan-out", func(t *testing.T) {
		ow := Measure(t, v, oneway.Config{Consumers: 1, Groups: 3}, 500, time.Second)
		CheckNothingLost(t, ow)
		for _, g := range ow.Groups {
			if g.Consumed != ow.Published {
				t.Errorf("group %s consumed %d of %d published: every group gets every message", g.Name, g.Consumed, ow.Published)
			}
		}
	})
	t.Run(v.Name+"/consumer-crash", func(t *testing.T) {
		began := time.Now()
		ow := Measure(t, v, oneway.Config{Consumers: 2, Abort: 500 * time.Millisecond, Drain: 10 * time.Second}, 500, 2*time.Second)
		if time.Since(began) > 20*time.Second {
			t.Errorf("the run took %v: the drain is bounded by 10 s", time.Since(began))
		}
		if len(ow.Aborted) != 1 {
			t.Fatalf("aborted %v: want the first consumer", ow.Aborted)
		}
		CheckAddsUp(t, ow)
		// At least once: nothing lost; what the crashed consumer took and
		// had not settled comes again, counted as duplicated.
		if !v.AtMostOnce && (ow.Lost != 0 || !ow.Drained) {
			t.Errorf("lost %d, drained %v: want nothing lost after a crash with these settings", ow.Lost, ow.Drained)
		}
	})
}

// Measure runs a one-way load of v at rate messages/s for d (a warm-up of
// 200 ms first) and returns its accounting.
func Measure(t *testing.T, v Variant, oc oneway.Config, rate float64, d time.Duration) *results.OneWay {
	t.Helper()
	st, err := transport.ParseStack(v.Stack)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w, err := load.OpenWindow(ctx, load.WindowConfig{Target: load.TargetConfig{Stack: st, Addr: v.Addr, Op: transport.OpPost,
		Model: "user", Count: 2, OneWay: true, Transport: transport.Config{Options: v.Options}}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cfg := load.Config{Kind: load.Rate, Rate: rate, Duration: d, Warmup: 200 * time.Millisecond, Timeout: 5 * time.Second}
	if oc.Drain == 0 {
		oc.Drain = 30 * time.Second // a slow consumer on a busy machine catches up; a lost message still fails
	}
	m, err := w.Measure(ctx, cfg, oneway.Driver(oc), nil)
	if err != nil {
		t.Fatal(err)
	}
	ow := m.Result.OneWay
	t.Logf("%s: published %d (failed %d), lost %d, duplicated %d, out of order %d, drain %.1f ms, e2e p50 %d µs p99 %d µs, groups %+v",
		v.Name, ow.Published, ow.PublishFailed, ow.Lost, ow.Duplicated, ow.OutOfOrder, ow.DrainMs, m.Result.Figures(m.Wire).P50Us, m.Result.Figures(m.Wire).P99Us, ow.Groups)
	// Publishes tried, taken or failed: a broker killed mid-run fails
	// them for as long as its restart takes.
	if tried := ow.Published + ow.PublishFailed; tried < int64(rate*d.Seconds()/2) {
		t.Errorf("published %d messages (%d failed): want about %.0f tried", ow.Published, ow.PublishFailed, rate*d.Seconds())
	}
	if m.Result.Latency.TotalCount() == 0 {
		t.Errorf("no end-to-end latency recorded")
	}
	return ow
}

// CheckNothingLost fails t unless every group took every published
// message once.
func CheckNothingLost(t *testing.T, ow *results.OneWay) {
	t.Helper()
	if ow.Lost != 0 || ow.Duplicated != 0 || !ow.Drained {
		t.Errorf("lost %d, duplicated %d, drained %v: want 0, 0, true", ow.Lost, ow.Duplicated, ow.Drained)
	}
	CheckAddsUp(t, ow)
}

// CheckAddsUp: each group's distinct messages and its lost ones are what
// was published, give or take those consumed whose publish failed.
func CheckAddsUp(t *testing.T, ow *results.OneWay) {
	t.Helper()
	for _, g := range ow.Groups {
		if g.Consumed+g.Lost-g.Unconfirmed != ow.Published {
			t.Errorf("group %s: consumed %d + lost %d - unconfirmed %d != published %d", g.Name, g.Consumed, g.Lost, g.Unconfirmed, ow.Published)
		}
		if g.Foreign != 0 {
			t.Errorf("group %s took %d messages not of this run", g.Name, g.Foreign)
		}
	}
}
