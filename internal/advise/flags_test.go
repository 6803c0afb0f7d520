package advise

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
)

// rateRun is one open-loop run of text×100 at rate whose p99 was p99 and
// whose calls failed as failed says, recorded as hopbench records it.
func rateRun(t *testing.T, stack, load string, p99 time.Duration, requests int64, failed map[string]int64, notSent int64) results.Record {
	t.Helper()
	h := stats.NewHistogram()
	for range 100 {
		stats.Record(h, p99)
	}
	r := results.Record{Case: stack + " direct echo text×100 " + load, Stack: stack, Topology: "direct", Op: "echo", Model: "text", Count: 100,
		Load: load, Outcome: results.OutcomeOK}
	r.Requests, r.NotSent, r.ErrorsByClass, r.RPS, r.P99Us = requests, notSent, failed, float64(requests)/2, p99.Microseconds()
	for _, n := range failed {
		r.Errors += n
	}
	if r.Errors > 0 || notSent > 0 {
		r.Outcome = results.OutcomeErrors
	}
	r.Histogram, _ = stats.Encode(h)
	r.MarkFailures()
	return r
}

// Runs that partly failed are not ranked, and the advice says why: the
// issue's run at 1 000 000 req/s (66 % of its calls failed, 1.9 M never
// sent) and its run with a 1 µs timeout (17 % timed out) were both
// ranked "fits" before. The records go through the results file, as
// hopbench advise reads them.
func TestRunsThatPartlyFailedAreNotRankedAndTheAdviceSaysWhy(t *testing.T) {
	recs := []results.Record{
		rateRun(t, "rest", "rate:1000000", 2609*time.Millisecond, 1_000_000, map[string]int64{"refused": 660_000}, 1_900_000),
		rateRun(t, "grpc", "rate:5000", 104*time.Microsecond, 11_671, map[string]int64{"timeout": 2_013}, 0),
		rateRun(t, "nats", "rate:5000", 900*time.Microsecond, 10_000, nil, 0),
	}
	path := filepath.Join(t.TempDir(), "results.jsonl")
	for i := range recs {
		if err := results.Append(path, &recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	read, _, err := results.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	a := advise(t, Requirements{Model: "text", Count: 100, Rate: 1000, SLA: 3 * time.Second}, read)
	if len(a.Ranked) != 1 || a.Ranked[0].Name != "nats" || !a.Ranked[0].Fits {
		t.Errorf("ranked %+v, want nats alone, fitting", a.Ranked)
	}
	var out bytes.Buffer
	if err := a.Write(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Left out: rest: 1 run left out (rate:1000000, partly failed (2560000 of 2900000 calls failed or went unsent (refused 660000, never sent 1900000), over the 0.1 % bound)); not ranked",
		"Left out: grpc: 1 run left out (rate:5000, partly failed (2013 of 11671 calls failed or went unsent (timeout 2013)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the advice does not say %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "rest: fits") || strings.Contains(out.String(), "grpc: fits") {
		t.Errorf("a run that partly failed is ranked as fitting:\n%s", out.String())
	}
}

// A run that failed a share of its calls at or under the bound stands:
// one refused call in 10 000 is ranked.
func TestARunWithinTheFailureBoundIsRanked(t *testing.T) {
	recs := []results.Record{rateRun(t, "rest", "rate:5000", time.Millisecond, 10_000, map[string]int64{"refused": 10}, 0)}
	a := advise(t, Requirements{Model: "text", Count: 100, Rate: 1000, SLA: 3 * time.Second}, recs)
	if len(a.Ranked) != 1 || len(a.LeftOut) != 0 || len(recs[0].Flags) != 0 {
		t.Errorf("ranked %+v, left out %q, flags %v: want rest ranked", a.Ranked, a.LeftOut, recs[0].Flags)
	}
}

// A capacity under a tenth of what the same stack carried in a closed
// loop contradicts it: advise calls the stack unsettled instead of
// ranking it "does not fit" on that capacity (make run's grpc: 878 req/s
// at the SLA beside 58 253 req/s at 32 clients).
func TestAContradictedCapacityIsUnsettledNotRanked(t *testing.T) {
	closed := rateRun(t, "grpc", "closed:32", 4*time.Millisecond, 116_506, nil, 0)
	closed.RPS = 58253
	search := rateRun(t, "grpc", "capacity:p99<=10ms", 9*time.Millisecond, 1756, nil, 0)
	search.Capacity = &results.SearchResult{RPS: 878, Above: 917, Percentile: 99, SLAUs: 10_000, Step: 0}
	search.Steps = []results.Step{{Value: 878, Requests: 1756, RPS: 878, Probe: results.ProbeWithin, PercentileUs: 9000}}
	recs := []results.Record{closed, search}
	results.MarkContradictions(recs) // as results.Read does
	if !recs[1].Flags.Has(results.FlagContradicted) {
		t.Fatalf("flags %v: want the search contradicted", recs[1].Flags)
	}
	a := advise(t, Requirements{Model: "text", Count: 100, Rate: 1000, SLA: 10 * time.Millisecond}, recs)
	var out bytes.Buffer
	if err := a.Write(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Left out: grpc: 1 run left out (capacity:p99<=10ms, contradicted (its capacity, 878 req/s, is ×0.015 of the 58253 req/s") || !strings.Contains(out.String(), "unsettled") {
		t.Errorf("the advice does not call grpc unsettled:\n%s", out.String())
	}
	if strings.Contains(out.String(), "up to 878 req/s") {
		t.Errorf("the contradicted capacity is used:\n%s", out.String())
	}
}

// A user's change tried in process is judged per stack by its body codec:
// gRPC's is proto; a codec the trials left out gives its stacks none.
func TestAStackIsJudgedOnItsCodecsTrialsOfTheUsersChange(t *testing.T) {
	trials := []evolution.Trial{
		{Codec: "proto", Change: "field-renamed x", Path: "v2,v1,v2", Outcome: evolution.Kept, Others: evolution.Kept},
		{Codec: "json", Change: "field-renamed x", Path: "v2,v1,v2", Outcome: evolution.Dropped, Others: evolution.Kept},
		{Codec: "json", Change: "field-added y", Path: "v1,v2,v1", Outcome: evolution.NotSent, Others: evolution.Kept},
	}
	evos := codecEvolutions(trials, []string{"rest", "grpc", "rest+proto", "rest+cbor"})
	if e := evos["grpc"]; e == nil || e.Kept != 1 || e.Sent != 1 || !strings.Contains(e.From, "in proto") {
		t.Errorf("grpc: %+v, want proto's one change kept", e)
	}
	if e := evos["rest"]; e == nil || e.Kept != 0 || e.Sent != 1 || len(e.Lost) != 1 || !strings.Contains(e.Lost[0], "dropped") {
		t.Errorf("rest: %+v, want json's rename dropped (a change not sent does not count)", e)
	}
	if _, ok := evos["rest+cbor"]; ok {
		t.Error("rest+cbor judged on trials of no cbor")
	}
}
