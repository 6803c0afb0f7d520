package compare

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
)

// testdata/feeds.jsonl is the grpc and grpc-stream direct runs of a
// feed:20 of user×3 (closed:1 and closed:32, one repetition each) from
// hopbench run of a spec of grpc, connect, ws+proto and grpc-stream on
// the development machine (2026-11-27).
func feedRecords(t *testing.T) []results.Record { return read(t, "testdata/feeds.jsonl") }

// rowsOf are res's rows of the metric named, by key.
func rowsOf(res *Result, metric string) map[string]Row {
	out := map[string]Row{}
	for _, r := range res.Rows {
		if r.Metric.Name == metric {
			out[r.Key] = r
		}
	}
	return out
}

func TestFeedsAreComparedOnTheirFirstMessageAndMessagesASecond(t *testing.T) {
	feeds := feedRecords(t)
	a, b := only(feeds, "grpc"), only(feeds, "grpc-stream")
	res := Compare(a, b, 0)
	if len(res.Fixed) != 1 || res.Fixed[0].Dim != "stack" || len(res.Rows) != 2*len(Metrics) {
		t.Fatalf("fixed %v, %d rows: want the stack compared, every metric of both loads", res.Fixed, len(res.Rows))
	}
	first, msgs := rowsOf(res, "first p50 ms"), rowsOf(res, "msg/s")
	for _, r := range a {
		k := "direct feed:20 user×3 " + r.Load
		if got, want := first[k].A.Center, float64(r.FirstMessage.P50Us)/1000; got != want {
			t.Errorf("%s: first p50 %v ms, the record says %v", k, got, want)
		}
		if got := msgs[k].A.Center; got != r.MessagesPerS || !msgs[k].Metric.HigherIsBetter {
			t.Errorf("%s: msg/s %v, the record says %v", k, got, r.MessagesPerS)
		}
	}
	var out bytes.Buffer
	if err := res.Write(&out, "grpc", "grpc-stream"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nmsg/s ", "\nfirst p50 ms ", "direct feed:20 user×3 closed:32"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table has no %q:\n%s", want, out.String())
		}
	}
}

// Beside echo runs, a feed's rows are its own: no echo configuration gets
// a first message or messages a second.
func TestEchoRunsGetNoFeedRows(t *testing.T) {
	a := append(read(t, "testdata/a.jsonl"), feedRecords(t)...)
	b := append(read(t, "testdata/b.jsonl"), feedRecords(t)...)
	res := Compare(a, b, 0)
	for _, metric := range []string{"first p50 ms", "msg/s"} {
		rows := rowsOf(res, metric)
		if len(rows) != 4 {
			t.Errorf("%d %s rows, want the 4 feed configurations'", len(rows), metric)
		}
		for k := range rows {
			if !strings.Contains(k, "feed:20") {
				t.Errorf("%s row for %s, an echo", metric, k)
			}
		}
	}
	if n := len(rowsOf(res, "p99 ms")); n != 6 {
		t.Errorf("%d p99 rows, want 2 echo and 4 feed configurations'", n)
	}
}

// A feed's benchmark line carries its first message and messages a
// second after the unary units, under the same name: benchstat makes a
// table a unit, of the lines that report it.
func TestAFeedsBenchfmtLineCarriesItsFirstMessage(t *testing.T) {
	unary := results.Record{Stack: "grpc", Topology: "direct", Op: "echo", Model: "user", Count: 3, Load: "closed:1", Outcome: results.OutcomeOK}
	unary.Requests, unary.RPS, unary.P50Us, unary.P90Us, unary.P99Us, unary.P999Us, unary.ClientCPUUsPerReq = 1000, 500, 400, 600, 900, 1500, 30.5
	feed := unary
	feed.Op, feed.FirstMessage, feed.MessagesPerS = "feed:20", &stats.Summary{Count: 1000, P50Us: 120, P99Us: 480}, 10000
	var out bytes.Buffer
	if _, err := Benchfmt(&out, []results.Record{unary, feed}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{
		"BenchmarkHopbench/stack=grpc/topology=direct/op=echo/payload=user×3/load=closed:1 1000 500 req/s 400000 p50-ns 600000 p90-ns 900000 p99-ns 1500000 p99.9-ns 30.5 client-µs/req",
		"BenchmarkHopbench/stack=grpc/topology=direct/op=feed:20/payload=user×3/load=closed:1 1000 500 req/s 400000 p50-ns 600000 p90-ns 900000 p99-ns 1500000 p99.9-ns 30.5 client-µs/req 120000 first-p50-ns 480000 first-p99-ns 10000 msg/s",
	}
	if got := lines[len(lines)-2:]; got[0] != want[0] || got[1] != want[1] {
		t.Errorf("lines\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// benchstat's reader takes both, each with its own units.
	r := benchfmt.NewReader(&out, "feeds.txt")
	var units []int
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.Result:
			units = append(units, len(rec.Values))
			if v, ok := rec.Value("first-p50-sec"); strings.Contains(string(rec.Name.Full()), "op=feed:20") && (!ok || v != 120e-6) {
				t.Errorf("first-p50 read as %v (%v)", v, ok)
			}
		case *benchfmt.SyntaxError:
			t.Errorf("benchfmt: %v", rec)
		}
	}
	if len(units) != 2 || units[0] != 6 || units[1] != 9 {
		t.Errorf("units a line %v, want 6 and 9", units)
	}
}
