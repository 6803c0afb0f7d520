package load

import (
	"os"
	"runtime/debug"
	"sync"
)

// GCPercent is the garbage collector's target (GOGC) while a load runs in
// this process, unless the process was started with GOGC set. The
// generator holds little (its histograms are recycled, its memory
// constant), so at Go's default of 100 it collected several hundred times
// in 8 s at 64 clients; at 400 its CPU a request fell by a fifth in every
// round measured (docs/load.md), and at 3 000 req/s with 256 workers it
// holds 65 MiB instead of 53. Nodes run in processes of their own and
// keep Go's default, as a user's service would.
const GCPercent = 400

// gcTarget counts the loads running in this process: the first sets
// GCPercent, the last one to end restores what was there before.
var gcTarget struct {
	sync.Mutex
	loads, was int
}

// collectLess sets GCPercent for a load and returns what undoes it.
func collectLess() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	gcTarget.Lock()
	defer gcTarget.Unlock()
	if gcTarget.loads++; gcTarget.loads == 1 {
		gcTarget.was = debug.SetGCPercent(GCPercent)
	}
	return func() {
		gcTarget.Lock()
		defer gcTarget.Unlock()
		if gcTarget.loads--; gcTarget.loads == 0 {
			debug.SetGCPercent(gcTarget.was)
		}
	}
}
