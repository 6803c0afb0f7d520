package expdoc

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/nodeapi"
	"github.com/hopbench/hopbench/internal/reproduce"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
)

// run is a completed run of a case: its stack, options and p50 (µs).
func run(stack, options string, p50 int64) results.Record {
	c := strings.TrimSpace(stack + " chain:2 get user×5 closed:1 " + options)
	start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	r := results.Record{Case: c, Stack: stack, Topology: "chain:2", Op: "get", Model: "user", Count: 5, Load: "closed:1",
		Options: options, Outcome: results.OutcomeOK, Started: start, Ended: start.Add(30 * time.Second)}
	r.Requests, r.P50Us = 100, p50
	if strings.Contains(options, "jvm") {
		r.Runtime = "jvm"
	}
	return r
}

// docOf is a Doc whose experiment x holds recs, read from no file.
func docOf(recs ...results.Record) *Doc {
	d := New("")
	d.exps["x"] = &exp{name: "x", recs: recs, m: reproduce.Measured{Records: recs}}
	return d
}

func runs(stack, options string, p50s ...int64) []results.Record {
	var out []results.Record
	for _, p := range p50s {
		out = append(out, run(stack, options, p))
	}
	return out
}

func TestAFilterPicksByEveryConditionItNames(t *testing.T) {
	recs := append(runs("rest", "", 100, 200), runs("grpc", "tls net:lan", 300)...)
	recs[0].Outcome, recs[0].ErrorsByClass = results.OutcomeErrors, map[string]int64{results.ClassOverSLA: 3}
	recs[1].Nodes = []results.Node{{Index: 0, Exit: "signal: killed"}, {Index: 1}}
	for _, c := range []struct {
		where []string
		want  int
	}{
		{nil, 3}, {[]string{"stack=rest"}, 2}, {[]string{"stack!=rest"}, 1}, {[]string{"stack=rest|grpc"}, 3},
		{[]string{"option=tls"}, 1}, {[]string{"option!=tls"}, 2}, {[]string{"net=lan"}, 1}, {[]string{"net=loopback"}, 2},
		{[]string{"errclass=over_sla"}, 1}, {[]string{"exited=0"}, 1}, {[]string{"runtime=go", "count=5"}, 3},
		{[]string{"outcome=errors", "stack=rest"}, 1},
	} {
		got, err := filter(recs, c.where)
		if err != nil || len(got) != c.want {
			t.Errorf("%v: %d runs (%v), want %d", c.where, len(got), err, c.want)
		}
	}
	for _, bad := range []string{"stack", "colour=red"} {
		if _, err := filter(recs, []string{bad}); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// A run that failed gives no latency, as for the verdicts; a median is
// of the runs that give one, and none giving one is an error.
func TestAMedianIsOfTheRunsThatGiveAFigure(t *testing.T) {
	recs := runs("rest", "", 100, 300, 200)
	killed := run("rest", "", 0)
	killed.Outcome = results.OutcomeOutOfMemory
	d := docOf(append(recs, killed)...)
	if m, err := d.median("x", "p50", "stack=rest"); err != nil || m != 0.2 {
		t.Errorf("median p50 = %v ms (%v), want 0.2", m, err)
	}
	if s, _ := d.spread("x", "p50"); s.Min != 0.1 || s.Max != 0.3 {
		t.Errorf("spread = %+v, want 0.1 to 0.3", s)
	}
	if _, err := d.median("x", "p50", "outcome=out of memory"); err == nil {
		t.Error("a median of no figure: no error")
	}
	if _, err := d.median("x", "colour"); err == nil || !strings.Contains(err.Error(), "unknown measure") {
		t.Errorf("an unknown measure: %v", err)
	}
}

func TestOwnMeasuresReadTheirFigure(t *testing.T) {
	r := run("rest", "", 100)
	r.Nodes = []results.Node{
		{Index: 0, BootMs: 20, Usage: results.Usage{CPUUsPerReq: 30, RSSBytes: 50 << 20, AnonRSS: 20 << 20}, Stats: &nodeapi.Stats{Phases: map[string]stats.Summary{"downstream": {MeanUs: 900, P50Us: 800}}}},
		{Index: 1, BootMs: 40, Usage: results.Usage{CPUUsPerReq: 10, RSSBytes: 40 << 20}, Stats: &nodeapi.Stats{Phases: map[string]stats.Summary{"total": {MeanUs: 70, P50Us: 60}}}},
	}
	r.Hosts = []results.Host{{Name: "b", NetPerReq: &results.WirePerRequest{Sent: 2000}}}
	r.ResponseBodyBytes = 789
	for measure, want := range map[string]float64{
		"cpu": 40, "node_rss": 50, "mapped_rss": 30, "boot_max_ms": 40, "boot_ms": 30, "reply_body": 789,
		"phase:0:downstream:p50": 800, "phase:leaf:total:mean": 70, "host_sent:b": 2000,
	} {
		v, ok, err := figure(&r, measure)
		if err != nil || !ok || v != want {
			t.Errorf("%s = %v (%v, %v), want %v", measure, v, ok, err, want)
		}
	}
	// A capacity, also with calls failed within its search's allowance,
	// only when the search bracketed it.
	search := run("rest", "", 100)
	search.Errors, search.CapacityRPS, search.Capacity = 12, 617, &results.SearchResult{}
	if v, ok, _ := figure(&search, "capacity_rps"); !ok || v != 617 {
		t.Errorf("a bracketed capacity reads %v (%v), want 617", v, ok)
	}
	for _, cut := range []results.SearchResult{{CutShort: true}, {LowerBound: true}} {
		search.Capacity = &cut
		if _, ok, _ := figure(&search, "capacity_rps"); ok {
			t.Errorf("a capacity %+v gives a figure", cut)
		}
	}
	r.Outcome = results.OutcomeOutOfMemory
	if _, ok, _ := figure(&r, "cpu"); ok {
		t.Error("a killed run gives a CPU figure")
	}
	if v, ok, _ := figure(&r, "reply_body"); !ok || v != 789 {
		t.Error("a killed run that replied gives no reply body")
	}
}

// Two sets of runs are compared as the verdicts compare them: the ratio
// of medians, its bootstrap interval, and Mann–Whitney's p, which needs
// reproduce.MinRuns a side.
func TestAComparisonIsARatioWithItsIntervalAndTest(t *testing.T) {
	d := docOf(append(runs("rest", "", 200, 210, 190, 205, 195), runs("grpc", "", 100, 105, 95, 102, 98)...)...)
	c, err := d.compare("x", "p50", []string{"stack=rest"}, []string{"stack=grpc"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Ratio != 2 || c.Low > 2 || c.High < 2 || !c.Differs() || c.Spans1() || c.Stack != "rest" || c.Runs() != 5 {
		t.Errorf("%+v: want ×2 inside its interval, a significant difference, rest's case", c)
	}
	few := docOf(append(runs("rest", "", 200, 210, 190), runs("grpc", "", 100, 105, 95)...)...)
	if c, _ := few.compare("x", "p50", []string{"stack=rest"}, []string{"stack=grpc"}); c.Tested || !math.IsNaN(c.P) || c.Differs() {
		t.Errorf("3 runs a side: %+v, want untested", c)
	}
}

// Each JVM case is set against its Go twin, the same case without the
// word; the spread of the ratios and of the differences follow.
func TestTwinsAreTheSameCaseWithOneWordSwapped(t *testing.T) {
	var recs []results.Record
	for _, s := range []string{"rest", "grpc"} {
		recs = append(recs, runs(s, "", 100, 100)...)
	}
	recs = append(append(recs, runs("rest", "jvm", 300, 300)...), runs("grpc", "jvm", 150, 150)...)
	cs, err := docOf(recs...).twins("x", "p50", "jvm", "")
	if err != nil || len(cs) != 2 {
		t.Fatalf("%d twins (%v), want 2", len(cs), err)
	}
	if cs.Least().Stack != "grpc" || math.Abs(cs.Least().Ratio-1.5) > 1e-9 || math.Abs(cs.Most().Ratio-3) > 1e-9 {
		t.Errorf("least %+v, most %+v", cs.Least(), cs.Most())
	}
	if d := cs.Diffs(); math.Abs(d.Min-0.05) > 1e-9 || math.Abs(d.Max-0.2) > 1e-9 {
		t.Errorf("diffs %+v, want 0.05 to 0.2 ms", d)
	}
	if twin, ok := swapWord("a on one-host", "one-host", "three-hosts"); !ok || twin != "a on three-hosts" {
		t.Errorf("swapWord: %q", twin)
	}
}

// A span is over the cases' medians, not over their runs.
func TestASpanIsOverTheCasesMedians(t *testing.T) {
	d := docOf(append(runs("rest", "", 100, 900, 200), runs("grpc", "", 400, 500, 450)...)...)
	s, err := d.span("x", "p50")
	if err != nil || s.Min != 0.2 || s.Max != 0.45 {
		t.Errorf("span %+v (%v), want 0.2 to 0.45", s, err)
	}
}

func TestLeadersAreEachCasesBestStack(t *testing.T) {
	recs := append(runs("rest", "", 100), runs("grpc", "", 200)...)
	recs = append(recs, runs("rest", "tls", 300)...)
	recs = append(recs, runs("grpc", "tls", 250)...)
	got, err := docOf(recs...).leaders("x", "p50", false)
	if err != nil || strings.Join(got, " ") != "rest grpc" {
		t.Errorf("leaders %v (%v), want rest grpc", got, err)
	}
	if got, _ := docOf(recs...).leaders("x", "p50", true); strings.Join(got, " ") != "grpc rest" {
		t.Errorf("highest %v, want grpc rest", got)
	}
}

func TestSchemaTrialsAreCountedAndReadBack(t *testing.T) {
	r := run("rest+proto", "schema:v2,v1,v2", 100)
	r.Evolution = []evolution.Trial{
		{Codec: "proto", Change: "scalar-widened", Path: "v2,v1,v2", Outcome: evolution.Corrupted, Others: evolution.Kept, Detail: "1 of 1 items: 3000000000 came back as -1294967296"},
		{Codec: "proto", Change: "field-added", Path: "v2,v1,v2", Outcome: evolution.Kept, Others: evolution.Kept},
	}
	d := docOf(r)
	if ts, err := d.pickTrials("x", []string{"others=kept"}); err != nil || len(ts) != 2 {
		t.Errorf("%d trials kept the others (%v), want 2", len(ts), err)
	}
	c, err := d.corruption("x", "codec=proto")
	if err != nil || c.Sent != "3 000 000 000" || c.Got != "−1 294 967 296" {
		t.Errorf("corruption %+v (%v)", c, err)
	}
}

func TestFiguresAreWrittenAsThePageWritesThem(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{digits(3, 14.572), "14.6"}, {digits(2, 0.13865), "0.14"}, {digits(4, 3428.35), "3428"}, {digits(3, 9.996), "10.0"},
		{ms(0.2191), "0.219"}, {ms(40.927), "40.93"}, {ms(205.18), "205.2"}, {ms(3428.4), "3428"},
		{groupThousands(1134), "1 134"}, {groupThousands(-1294967296), "-1 294 967 296"},
		{words([]string{"a", "b", "c"}), "a, b and c"}, {stackName("amqp"), "RabbitMQ"}, {stackName("rest+proto"), "rest+proto"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestDurationAndDateAreTheRecords(t *testing.T) {
	d := docOf(runs("rest", "", 1, 2, 3)...)
	if got, _ := d.duration("x"); got != "1 min 30 s" {
		t.Errorf("duration %q, want 1 min 30 s", got)
	}
	if got, _ := d.date("x"); got != "2026-11-23" {
		t.Errorf("date %q", got)
	}
}
