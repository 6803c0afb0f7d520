package experiment

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/lease"
)

// The issue: nothing warned that another run was measuring on the same
// cores. A run made while another hopbench process measures hears of it
// and its record names it.
func TestARunSharingTheMachineSaysSo(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	t.Setenv("HOPBENCH_LEASES", t.TempDir())
	other, _, err := lease.Measure() // stands for another run: a lease of its own
	if err != nil {
		t.Fatal(err)
	}
	defer other.Release()
	spec, err := Parse([]byte(`
stacks: [rest]
payloads: [{model: text, counts: [10]}]
loads: [{closed: {clients: 1}}]
duration: 1s
warmup: 0s
`))
	if err != nil {
		t.Fatal(err)
	}
	x := &Runner{Bin: hopbenchBin(t), Dir: t.TempDir()}
	var heard []lease.Holder
	x.OnShared = func(hs []lease.Holder) { heard = append(heard, hs...) }
	recs, err := x.Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	self := fmt.Sprintf("pid %d (", os.Getpid())
	if len(recs) != 1 || !slices.ContainsFunc(recs[0].OthersMeasuring, func(s string) bool { return strings.HasPrefix(s, self) }) {
		t.Fatalf("records %+v: want the other run named in others_measuring", recs)
	}
	if len(heard) == 0 || heard[0].PID != os.Getpid() {
		t.Errorf("OnShared heard %+v", heard)
	}
	// Alone, a run names nobody.
	other.Release()
	heard = nil
	x.Dir = t.TempDir()
	if recs, err = x.Run(context.Background(), spec); err != nil || len(recs[0].OthersMeasuring) != 0 || len(heard) != 0 {
		t.Fatalf("alone: %v, others %v, heard %v", err, recs[0].OthersMeasuring, heard)
	}
}
