package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/experiment"
	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/wire"
)

// hopbench load shows a feed's time to first message and its messages per
// second, and a unary load's table has neither row; its record carries
// the first messages' histogram.
func TestHopbenchLoadShowsAFeedsFirstMessages(t *testing.T) {
	lat, first := stats.NewHistogram(), stats.NewHistogram()
	stats.Record(lat, 20*time.Millisecond)
	stats.Record(first, 3*time.Millisecond)
	res := &load.Result{Requests: 10, Elapsed: time.Second, Latency: lat, FirstMessage: first, Messages: 40, ErrorsByClass: map[string]int64{}}
	feed := &loadOutput{Stack: "grpc", Target: "127.0.0.1:7070", Op: "feed:4", Model: "user", Count: 5, Load: "closed:1", Figures: res.Figures(wire.Totals{})}
	unary := &loadOutput{Stack: "grpc", Target: "127.0.0.1:7070", Op: "echo", Model: "user", Count: 5, Load: "closed:1",
		Figures: (&load.Result{Requests: 10, Elapsed: time.Second, Latency: lat, ErrorsByClass: map[string]int64{}}).Figures(wire.Totals{})}
	for _, c := range []struct {
		out  *loadOutput
		feed bool
	}{{feed, true}, {unary, false}} {
		var b strings.Builder
		if err := c.out.write(&b, "table"); err != nil {
			t.Fatal(err)
		}
		for _, row := range []string{"first message  p50 3001µs  p99 3001µs", "messages       40 messages/s"} {
			if strings.Contains(b.String(), row) != c.feed {
				t.Errorf("%s: row %q shown %v, want %v:\n%s", c.out.Op, row, !c.feed, c.feed, b.String())
			}
		}
	}
	f := &loadFlags{op: "feed:4", cfg: load.Config{Kind: load.Closed, Clients: 1, Duration: time.Second}}
	f.target = load.TargetConfig{Model: "user", Count: 5, Op: transport.OpFeed, Messages: 4}
	f.target.Stack, _ = transport.ParseStack("grpc")
	dir := t.TempDir()
	rec, err := loadRecord(f.run(), load.Measured{Result: res}, time.Now(), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := results.Append(filepath.Join(dir, experiment.ResultsFile), rec); err != nil {
		t.Fatal(err)
	}
	recs, _, err := results.Read(filepath.Join(dir, experiment.ResultsFile))
	if err != nil || len(recs) != 1 {
		t.Fatalf("%d records: %v", len(recs), err)
	}
	h, err := stats.Decode(recs[0].FirstMessageHistogram)
	if err != nil || h.TotalCount() != 1 || recs[0].FirstMessage == nil || recs[0].MessagesPerS != 40 {
		t.Errorf("the record's first messages: histogram %v (%v), figures %+v, %v messages/s", h, err, recs[0].FirstMessage, recs[0].MessagesPerS)
	}
}
