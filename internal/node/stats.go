package node

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/hopbench/hopbench/internal/nodeapi"
	"github.com/hopbench/hopbench/internal/stats"
)

// Phase is one part of serving a request.
type Phase int

const (
	PhaseDecode     Phase = iota // decompress and unmarshal the request
	PhaseWork                    // the operation itself (generate, count, copy)
	PhaseDownstream              // calls to downstream nodes, their encoding and decoding included
	PhaseEncode                  // marshal and compress the reply
	PhaseTotal                   // the whole request inside the node
	numPhases
)

// String is the phase's name in the node contract's stats.
func (p Phase) String() string { return nodeapi.Phases[p] }

// timings holds one histogram per phase, sharded so that concurrent requests
// rarely contend on one lock; merged combines the shards.
type timings struct {
	next   atomic.Uint32
	shards []timingShard
}

type timingShard struct {
	mu    sync.Mutex
	hists [numPhases]*hdrhistogram.Histogram
}

func newTimings() *timings {
	t := &timings{shards: make([]timingShard, 4*runtime.GOMAXPROCS(0))}
	for i := range t.shards {
		for p := range t.shards[i].hists {
			t.shards[i].hists[p] = stats.NewHistogram()
		}
	}
	return t
}

// record adds one request's phase durations.
func (t *timings) record(d *[numPhases]time.Duration) {
	s := &t.shards[int(t.next.Add(1))%len(t.shards)]
	s.mu.Lock()
	for p, dur := range d {
		stats.Record(s.hists[p], dur)
	}
	s.mu.Unlock()
}

func (t *timings) merged() [numPhases]*hdrhistogram.Histogram {
	var out [numPhases]*hdrhistogram.Histogram
	for p := range out {
		out[p] = stats.NewHistogram()
	}
	for i := range t.shards {
		s := &t.shards[i]
		s.mu.Lock()
		for p := range out {
			out[p].Merge(s.hists[p])
		}
		s.mu.Unlock()
	}
	return out
}

// Memory and Stats are the node contract's (package nodeapi).
type (
	Memory = nodeapi.Memory
	Stats  = nodeapi.Stats
)

func readMemory() Memory {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return Memory{
		HeapAllocBytes: m.HeapAlloc, HeapInuseBytes: m.HeapInuse, SysBytes: m.Sys,
		TotalAllocBytes: m.TotalAlloc, NumGC: m.NumGC, Goroutines: runtime.NumGoroutine(),
	}
}

// reset empties every shard, so figures read later cover only what came after.
func (t *timings) reset() {
	for i := range t.shards {
		s := &t.shards[i]
		s.mu.Lock()
		for _, h := range s.hists {
			h.Reset()
		}
		s.mu.Unlock()
	}
}
