package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/results"
)

// runsOf are n records of one case, each with its p50 (µs) and req/s from
// p50s and rps in turn; outcome for every one.
func runsOf(stack, load, outcome string, p50s []int64, rps []float64) []results.Record {
	var out []results.Record
	for i, p := range p50s {
		r := results.Record{Case: stack + " direct echo text×10 " + load, Stack: stack, Topology: "direct", Op: "echo", Model: "text", Count: 10,
			Load: load, Outcome: outcome, Repetition: i}
		r.Requests, r.P50Us, r.RPS = 1000, p, rps[i]
		out = append(out, r)
	}
	return out
}

func rankingOf(t *testing.T, recs []results.Record, load string) Ranking {
	t.Helper()
	r, err := Build("verdict", nil, recs)
	if err != nil {
		t.Fatal(err)
	}
	for _, rk := range r.Verdict.Rankings {
		if strings.HasSuffix(rk.Case, loadWords(load)) {
			return rk
		}
	}
	t.Fatalf("no ranking of %s in %+v", load, r.Verdict.Rankings)
	return Ranking{}
}

// With five runs a side, a stack clearly slower than the best is marked
// significantly different (≠) and one whose runs overlap the best's is
// not (≈); every factor carries its interval; a stack whose runs' calls
// failed gets no figure, and says so.
func TestTheVerdictRanksTestsAndLeavesOutFailedRuns(t *testing.T) {
	rps := []float64{1, 1, 1, 1, 1}
	var recs []results.Record
	recs = append(recs, runsOf("grpc", "closed:1", results.OutcomeOK, []int64{100, 102, 98, 101, 99}, rps)...)
	recs = append(recs, runsOf("rest", "closed:1", results.OutcomeOK, []int64{101, 103, 99, 104, 97}, rps)...)
	recs = append(recs, runsOf("graphql", "closed:1", results.OutcomeOK, []int64{300, 310, 305, 290, 320}, rps)...)
	failing := runsOf("kafka", "closed:1", results.OutcomeErrors, []int64{50, 50}, []float64{1, 1})
	for i := range failing {
		failing[i].Errors, failing[i].ErrorsByClass = 40, map[string]int64{"refused": 40}
		failing[i].MarkFailures() // as the run's writer does
	}
	recs = append(recs, failing...)
	rk := rankingOf(t, recs, "closed:1")
	var got []string
	for _, e := range rk.Entries {
		got = append(got, fmt.Sprintf("%d %s %s%s %s", e.Rank, e.Stack, e.Factor, e.Versus, e.Value))
	}
	want := []string{"1 grpc  0.100 ms", "2 rest ×1.01 [", "3 graphql ×3.05 ["}
	if len(got) != 3 {
		t.Fatalf("ranking %q, want grpc, rest, graphql", got)
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("place %d: %q, want it to start %q", i+1, got[i], w)
		}
	}
	if rk.Entries[1].Versus != "≈" || rk.Entries[2].Versus != "≠" {
		t.Errorf("rest %q and graphql %q against grpc, want ≈ and ≠", rk.Entries[1].Versus, rk.Entries[2].Versus)
	}
	if len(rk.Without) != 1 || !strings.Contains(rk.Without[0], "kafka: 2 of its runs partly failed") {
		t.Errorf("without %q, want kafka's runs that partly failed", rk.Without)
	}
	if rk.Figure != "p50, lower is better" {
		t.Errorf("figure %q", rk.Figure)
	}
}

// Under more clients the ranking is by throughput, highest first, and
// with one run a side nothing is tested: no interval, no mark, and the
// method says why.
func TestTheVerdictRanksThroughputAndSaysWhenNothingIsTested(t *testing.T) {
	var recs []results.Record
	recs = append(recs, runsOf("rest", "closed:32", results.OutcomeOK, []int64{900}, []float64{3000})...)
	recs = append(recs, runsOf("grpc", "closed:32", results.OutcomeOK, []int64{800}, []float64{6000})...)
	rk := rankingOf(t, recs, "closed:32")
	if rk.Entries[0].Stack != "grpc" || rk.Entries[0].Value != "6000 req/s" || rk.Entries[1].Factor != "×0.50" || rk.Entries[1].Versus != "" {
		t.Errorf("ranking %+v, want grpc 6000 req/s first, rest ×0.50 untested", rk.Entries)
	}
	r, err := Build("verdict", nil, recs)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Verdict.Method, "1 run in each case: too few to test any difference") {
		t.Errorf("method %q does not say nothing was tested", r.Verdict.Method)
	}
}
