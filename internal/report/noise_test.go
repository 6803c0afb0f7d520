package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hopbench/hopbench/internal/results"
)

// The report states the machine's noise beside its floor: before the
// runs from the records' calibration, after them from the file beside.
func TestTheReportStatesTheNoiseBeforeAndAfter(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, results.NoiseAfterFile), []byte(`{"noise_spread": 0.12}`), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := results.Record{Case: "c", Stack: "rest", Topology: "direct", Op: "echo", Model: "text", Count: 1, Load: "closed:1", Outcome: results.OutcomeOK,
		Calibration: &results.Calibration{HTTPRoundTripUs: 30, NoiseSpread: 0.04, Samples: 2000}}
	rec.Requests, rec.P50Us = 10, 30
	r, err := Build("noise", []string{dir}, []results.Record{rec})
	if err != nil {
		t.Fatal(err)
	}
	want := "a fixed workload's median (the HTTP round trip) moved 4 % across 5 batches before the runs, 12 % after them"
	for _, kv := range r.Environment {
		if kv[0] == "noise" && kv[1] == want {
			return
		}
	}
	t.Errorf("environment %q: want noise %q", r.Environment, want)
}
