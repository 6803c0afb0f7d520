package trial

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
)

// A run most of whose calls failed is recorded as such, with its counts
// and without a figure that could pass for the service's: a feed's time
// to first message and messages per second go too.
func TestARunWhoseCallsFailedLosesItsFigures(t *testing.T) {
	h := stats.NewHistogram()
	stats.Record(h, time.Microsecond)
	res := &load.Result{Requests: 4307775, Errors: 4307000, ErrorsByClass: map[string]int64{"refused": 4307000}, Elapsed: 3 * time.Second, Latency: h,
		FirstMessage: h, Messages: 775}
	rec := &results.Record{}
	if err := (load.Measured{Result: res}).Record(rec); err != nil {
		t.Fatal(err)
	}
	rec.Series = []results.Second{{T: 0, Requests: 1, P50Us: 1}}
	if rec.FirstMessage == nil || rec.MessagesPerS == 0 || rec.FirstMessageHistogram == "" {
		t.Fatalf("a feed's record without its first messages: %+v", rec.Figures)
	}
	ctx := context.Background()
	outcome, reason := outcome(ctx, ctx, nil, nil, nil, rec, res)
	if outcome != results.OutcomeCallsFailed || !strings.Contains(reason, "4307000 of 4307775 calls failed (refused 4307000)") {
		t.Errorf("outcome %q (%s)", outcome, reason)
	}
	if rec.RPS != 0 || rec.P50Us != 0 || rec.Histogram != "" || rec.Series != nil || rec.Requests != 4307775 || rec.Completed() {
		t.Errorf("record keeps figures: %+v", rec.Figures)
	}
	if rec.FirstMessage != nil || rec.MessagesPerS != 0 || rec.FirstMessageHistogram != "" {
		t.Errorf("record keeps a feed's figures: first message %+v, %v messages/s, histogram %q", rec.FirstMessage, rec.MessagesPerS, rec.FirstMessageHistogram)
	}
}
