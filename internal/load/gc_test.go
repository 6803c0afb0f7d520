package load_test

import (
	"context"
	"runtime/debug"
	"testing"

	"github.com/hopbench/hopbench/internal/load"
)

// gcPercent reads the collector's target (setting it back at once).
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// While a load runs its process collects at load.GCPercent, and after it
// at what it did before; a GOGC the process was started with wins.
func TestALoadCollectsLessOften(t *testing.T) {
	for _, c := range []struct {
		gogc      string
		want, was int
	}{{"", load.GCPercent, 100}, {"150", 150, 150}} {
		t.Setenv("GOGC", c.gogc)
		defer debug.SetGCPercent(debug.SetGCPercent(c.was))
		during := make(chan int, 1)
		newCall := func() load.Call {
			return func(context.Context) error {
				select {
				case during <- gcPercent():
				default:
				}
				return nil
			}
		}
		if _, err := load.Run(context.Background(), load.Config{Kind: load.Closed, Clients: 2, Requests: 20}, newCall); err != nil {
			t.Fatal(err)
		}
		if got := <-during; got != c.want {
			t.Errorf("GOGC=%q: a load ran with the GC target at %d, want %d", c.gogc, got, c.want)
		}
		if got := gcPercent(); got != c.was {
			t.Errorf("GOGC=%q: after the load the GC target is %d, want %d as before", c.gogc, got, c.was)
		}
	}
}
