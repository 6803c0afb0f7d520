package reproduce

import (
	"fmt"

	"github.com/hopbench/hopbench/internal/results"
)

// The heap measures read a JVM node's GC log over the window
// (results.Heap): the most heap it used, which the thesis calls transient
// memory, and the most it had committed, the heap it requested. They are
// read from runs the memory limit ended too, as the heap up to the kill:
// what the thesis's figures of its killed run show.
const (
	MeasureHeapUsed      = "heap_used_peak"
	MeasureHeapCommitted = "heap_committed_peak"
)

func heapMeasure(measure string) bool {
	return measure == MeasureHeapUsed || measure == MeasureHeapCommitted
}

// heapPeakMiB is the largest of the run's nodes' heap peaks the measure
// names, in MiB.
func heapPeakMiB(r *results.Record, measure string) (float64, error) {
	peak, committed := r.HeapPeaks()
	if measure == MeasureHeapCommitted {
		peak = committed
	}
	if peak == 0 {
		return 0, fmt.Errorf("no heap recorded: JVM nodes here record their GC log's pauses over the window (Go's nodes, nodes on hosts and records made before hopbench kept it have none)")
	}
	return float64(peak) / (1 << 20), nil
}
