package trial

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/nodeapi"
	"github.com/hopbench/hopbench/internal/results"
)

// logHeap has JVM node i of run index write its collections to a GC log
// of its own under dir (the rig's JVM directory), which the heap meter
// reads and nodes removes.
func logHeap(dir string, index, i int, nodes *nodeSet, cfg nodeapi.Config) nodeapi.Config {
	path := filepath.Join(dir, fmt.Sprintf("gc-run%d-node%d.log", index, i))
	cfg.JVMFlags = append(slices.Clone(cfg.JVMFlags), jvm.HeapLogFlag(path))
	nodes.mu.Lock()
	defer nodes.mu.Unlock()
	if nodes.heapLogs == nil {
		nodes.heapLogs = map[int]string{}
	}
	nodes.heapLogs[i] = path
	return cfg
}

// heapMeter reads the pauses each JVM node's GC log gains over the
// window; nil when the run has no such log.
func heapMeter(nodes *nodeSet) meterStart {
	return func(context.Context) meter {
		nodes.mu.Lock()
		defer nodes.mu.Unlock()
		if len(nodes.heapLogs) == 0 {
			return nil
		}
		h := heapWindow{logs: nodes.heapLogs, from: map[int]int64{}}
		for i, path := range h.logs {
			if st, err := os.Stat(path); err == nil {
				h.from[i] = st.Size()
			}
		}
		return h
	}
}

// heapWindow is where each node's GC log stood as the window opened.
type heapWindow struct {
	logs map[int]string
	from map[int]int64
}

// heapReading is a node's heap over the window: heap when its log had a
// pause in it; a log that cannot be read leaves no figure and says why.
type heapReading struct {
	heap *results.Heap
	err  string
}

func (h heapWindow) end(_ context.Context, _ int64, got *readings) {
	got.heaps = map[int]heapReading{}
	for i, path := range h.logs {
		heap, err := readHeap(path, h.from[i])
		switch {
		case err != nil:
			got.heaps[i] = heapReading{err: err.Error()}
		case heap.Pauses > 0:
			got.heaps[i] = heapReading{heap: &heap}
		}
	}
}

// readHeap reads a GC log from offset on.
func readHeap(path string, offset int64) (results.Heap, error) {
	f, err := os.Open(path)
	if err != nil {
		return results.Heap{}, err
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return results.Heap{}, err
	}
	return jvm.HeapOf(f)
}
