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
	"github.com/hopbench/hopbench/internal/wire"
)

// logHeap has JVM node i here write its collections to a GC log of its
// own, under the rig's JVM directory, which the heap meter reads.
func (m *measurement) logHeap(i int, cfg nodeapi.Config) nodeapi.Config {
	path := filepath.Join(m.jvm.dir, fmt.Sprintf("gc-run%d-node%d.log", m.c.Index, i))
	cfg.JVMFlags = append(slices.Clone(cfg.JVMFlags), jvm.HeapLogFlag(path))
	m.nodes.mu.Lock()
	defer m.nodes.mu.Unlock()
	if m.nodes.heapLogs == nil {
		m.nodes.heapLogs = map[int]string{}
	}
	m.nodes.heapLogs[i] = path
	return cfg
}

// heapMeter reads the pauses each JVM node's GC log gains over the window
// into its record; nil when the run has no such log.
func heapMeter(m *measurement) meter {
	m.nodes.mu.Lock()
	defer m.nodes.mu.Unlock()
	if len(m.nodes.heapLogs) == 0 {
		return nil
	}
	h := heapWindow{logs: m.nodes.heapLogs, from: map[int]int64{}}
	for i, path := range h.logs {
		if st, err := os.Stat(path); err == nil {
			h.from[i] = st.Size()
		}
	}
	return h
}

// heapWindow is where each node's GC log stood as the window opened.
type heapWindow struct {
	logs map[int]string
	from map[int]int64
}

// end records a node's heap when its log had a pause in the window; a
// log that cannot be read leaves no figure and says why in its record.
func (h heapWindow) end(_ context.Context, m *measurement, _ int64, _ wire.Totals) {
	for i, path := range h.logs {
		if i >= len(m.rec.Nodes) {
			continue
		}
		got, err := readHeap(path, h.from[i])
		switch {
		case err != nil:
			m.rec.Nodes[i].HeapError = err.Error()
		case got.Pauses > 0:
			m.rec.Nodes[i].Heap = &got
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
