package node

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/hopbench/hopbench/internal/stats"
	"github.com/hopbench/hopbench/internal/wire"
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

var phaseNames = [numPhases]string{"decode", "work", "downstream", "encode", "total"}

func (p Phase) String() string { return phaseNames[p] }

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

// Memory is the Go runtime's view of the node's memory.
type Memory struct {
	HeapAllocBytes  uint64 `json:"heap_alloc_bytes"`
	HeapInuseBytes  uint64 `json:"heap_inuse_bytes"`
	SysBytes        uint64 `json:"sys_bytes"`
	TotalAllocBytes uint64 `json:"total_alloc_bytes"`
	NumGC           uint32 `json:"num_gc"`
	Goroutines      int    `json:"goroutines"`
}

func readMemory() Memory {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return Memory{
		HeapAllocBytes: m.HeapAlloc, HeapInuseBytes: m.HeapInuse, SysBytes: m.Sys,
		TotalAllocBytes: m.TotalAlloc, NumGC: m.NumGC, Goroutines: runtime.NumGoroutine(),
	}
}

// Stats is what a node reports over its admin endpoint.
type Stats struct {
	Stack      string                   `json:"stack"`
	Addr       string                   `json:"addr"`
	Downstream []string                 `json:"downstream"`
	Requests   int64                    `json:"requests"`
	Errors     map[string]int64         `json:"errors"`
	CacheHits  int64                    `json:"cache_hits"`
	Phases     map[string]stats.Summary `json:"phases_us"`
	Memory     Memory                   `json:"memory"`
	// Wire is what the connections the node dialled carried since the last
	// reset: its downstream calls and, on broker stacks, all its traffic to
	// and from the broker.
	Wire *wire.Totals `json:"wire,omitempty"`
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
