package load

import (
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/hopbench/hopbench/internal/results"
)

// hopbench run and hopbench load judge and record a load by one step
// (Measured.Record, Result.Judge); before, load judged a capacity search
// with failed probes above its capacity as errors where run said ok, and
// its records had no uncorrected histogram.
func TestRunAndLoadRecordAndJudgeALoadAlike(t *testing.T) {
	lat := hdrhistogram.New(1, int64(time.Minute), 3)
	raw := hdrhistogram.New(1, int64(time.Minute), 3)
	for _, h := range []*hdrhistogram.Histogram{lat, raw} {
		if err := h.RecordValue(int64(time.Millisecond)); err != nil {
			t.Fatal(err)
		}
	}
	res := &Result{Requests: 100, Errors: 30, Elapsed: time.Second, Latency: lat, Uncorrected: raw, ErrorsByClass: map[string]int64{},
		Steps: []results.Step{
			{Value: 100, Requests: 100, ErrorsByClass: map[string]int64{}},
			{Value: 200, Requests: 200, Errors: 30, ErrorsByClass: map[string]int64{"timeout": 30}},
		},
		Capacity: &results.SearchResult{RPS: 100, Step: 0}}
	var rec results.Record
	if err := (Measured{Result: res}).Record(&rec); err != nil {
		t.Fatal(err)
	}
	if rec.Histogram == "" || rec.UncorrectedHistogram == "" {
		t.Errorf("histograms recorded: corrected %v, uncorrected %v; want both", rec.Histogram != "", rec.UncorrectedHistogram != "")
	}
	if got, why := res.Judge(&rec); got != results.OutcomeOK {
		t.Errorf("a search whose probe above its capacity failed: %s (%s), want ok: only the probe at the capacity counts", got, why)
	}
	res.Steps[0].Errors, res.Steps[0].ErrorsByClass = 1, map[string]int64{"timeout": 1}
	if got, _ := res.Judge(&rec); got != results.OutcomeErrors {
		t.Errorf("a search whose probe at its capacity had a failed call: %s, want errors", got)
	}
}
