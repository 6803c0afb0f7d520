package experiment

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/lease"
	"github.com/hopbench/hopbench/internal/report"
	"github.com/hopbench/hopbench/internal/results"
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
	x := &Runner{Bin: hopbenchBin(t), Dir: t.TempDir()}
	var heard []lease.Holder
	x.OnShared = func(hs []lease.Holder) { heard = append(heard, hs...) }
	recs := runSpec(t, x, restSecond)
	self := fmt.Sprintf("pid %d (", os.Getpid())
	if len(recs) != 1 || !slices.ContainsFunc(recs[0].OthersMeasuring, func(s string) bool { return strings.HasPrefix(s, self) }) {
		t.Fatalf("records %+v: want the other run named in others_measuring", recs)
	}
	if len(heard) == 0 || heard[0].PID != os.Getpid() {
		t.Errorf("OnShared heard %+v", heard)
	}
	// The figure carries the mark, and so does its place in the verdict.
	if !recs[0].Flags.Has(results.FlagContaminated) || recs[0].Noise == nil || recs[0].Noise.Samples == 0 {
		t.Errorf("flags %v, noise %+v: want the run marked contaminated and its noise read", recs[0].Flags, recs[0].Noise)
	}
	r, err := report.Build("shared", nil, recs)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Join(r.Verdict.Lines(), "\n"); !strings.Contains(lines, "[contaminated in 1 of 1 runs]") {
		t.Errorf("the verdict line does not carry the mark: %s", lines)
	}
	// Alone, a run names nobody.
	other.Release()
	heard = nil
	x.Dir = t.TempDir()
	if recs = runSpec(t, x, restSecond); len(recs[0].OthersMeasuring) != 0 || len(heard) != 0 {
		t.Fatalf("alone: others %v, heard %v", recs[0].OthersMeasuring, heard)
	}
	t.Logf("alone: noise %+v, flags %v", recs[0].Noise, recs[0].Flags)
}
