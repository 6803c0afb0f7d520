package advise

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
	_ "github.com/hopbench/hopbench/internal/transport/all"
)

// testdata/quick.jsonl is one `make run` of the quick preset on the
// development machine (2026-11-22): 8 stacks, text×100 and payment×5,
// direct and chain:5, closed:1 and closed:32.
func quick(t *testing.T) []results.Record { return fixture(t, "testdata/quick.jsonl") }

func fixture(t *testing.T, path string) []results.Record {
	t.Helper()
	recs, _, err := results.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func advise(t *testing.T, req Requirements, recs []results.Record) *Advice {
	t.Helper()
	req.Defaults()
	if err := req.Validate(); err != nil {
		t.Fatal(err)
	}
	a, err := Advise(req, recs)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func byName(a *Advice) map[string]Stack {
	m := map[string]Stack{}
	for _, s := range a.Ranked {
		m[s.Name] = s
	}
	return m
}

func TestClosedLoopsDoNotSayTheLatencyAtARate(t *testing.T) {
	a := advise(t, Requirements{Model: "payment", Count: 5, Rate: 2000, SLA: 20 * time.Millisecond, Stacks: []string{"grpc", "graphql"}}, quick(t))
	for _, s := range a.Ranked {
		if s.Fits || !s.NotMeasured || !strings.Contains(s.Unmet[0], "latency at 2000 req/s: not measured") {
			t.Errorf("%s judged at a rate from closed loops: fits %v, unmet %q", s.Name, s.Fits, s.Unmet)
		}
	}
	g := byName(a)["graphql"]
	if !strings.Contains(strings.Join(g.Unmet, "\n"), "rate: 2000 req/s needed, 580 req/s at most") {
		t.Errorf("graphql, which a closed loop never took to 2000 req/s: %v", g.Unmet)
	}
	cmd := "hopbench advise --model payment --count 5 --rate 2000 --sla 20ms --stacks graphql,grpc --measure"
	if !a.NeedsMeasurement() || len(a.Missing) != 1 || !strings.HasSuffix(a.Missing[0], cmd) {
		t.Errorf("missing %q, want the command %q", a.Missing, cmd)
	}
}

func TestRanksEveryMeasuredStackCitingItsFigures(t *testing.T) {
	recs := quick(t)
	a := advise(t, Requirements{Model: "payment", Count: 5, Rate: 2000}, recs)
	if len(a.Ranked) != 8 || a.Basis != "payment×5 through direct" {
		t.Fatalf("%d ranked on %q", len(a.Ranked), a.Basis)
	}
	fitting := true
	for i, s := range a.Ranked {
		if s.Fits && !fitting {
			t.Errorf("%s fits but ranks below a stack that does not", s.Name)
		}
		fitting = s.Fits
		if i > 0 && s.Fits && a.Ranked[i-1].LatencyUs > s.LatencyUs {
			t.Errorf("%s ranks below a slower stack", s.Name)
		}
		if len(s.Evidence) < 3 || !strings.Contains(s.Evidence[0], "req/s (closed:") {
			t.Errorf("%s: evidence %q", s.Name, s.Evidence)
		}
	}
	// The latency cited is the one in the records: the p99 of the least
	// loaded run that carried 2000 req/s (no SLA is judged from it).
	for _, r := range recs {
		if r.Stack == "grpc" && r.Topology == "direct" && r.Model == "payment" && r.Load == "closed:1" {
			h, _ := stats.Decode(r.Histogram)
			if got, want := byName(a)["grpc"].LatencyUs, float64(h.ValueAtQuantile(99)); got != want || r.RPS < 2000 {
				t.Errorf("grpc p99 %v, record says %v at %v req/s", got, want, r.RPS)
			}
		}
	}
	g := byName(a)["graphql"]
	if g.Fits || !strings.Contains(strings.Join(g.Unmet, "\n"), "rate: 2000 req/s needed, 580 req/s at most") {
		t.Errorf("graphql: %v", g.Unmet)
	}
	var out bytes.Buffer
	a.Write(&out)
	if !strings.Contains(out.String(), "1. grpc: fits") || !strings.Contains(out.String(), "measured: p99 ") {
		t.Errorf("output:\n%s", out.String())
	}
}

func TestTraitRequirementsNeedTheTechnology(t *testing.T) {
	recs := quick(t)
	a := byName(advise(t, Requirements{Model: "text", Count: 100, Async: true, Durable: true}, recs))
	for _, s := range []string{"rest", "rest+proto", "grpc", "graphql"} {
		if a[s].Fits || !strings.Contains(a[s].Unmet[0], "no broker") {
			t.Errorf("%s: %v", s, a[s].Unmet)
		}
	}
	if !a["amqp"].Fits || !a["kafka"].Fits {
		t.Errorf("amqp %v, kafka %v", a["amqp"].Unmet, a["kafka"].Unmet)
	}
	if a["nats"].Fits || !strings.Contains(strings.Join(a["nats"].Unmet, ""), "durability") {
		t.Errorf("nats: %v", a["nats"].Unmet)
	}
	b := byName(advise(t, Requirements{Model: "text", Count: 100, Browser: true, SchemaEvolution: true}, recs))
	if b["grpc"].Fits || !strings.Contains(strings.Join(b["grpc"].Unmet, ""), "gRPC-Web") {
		t.Errorf("grpc for browsers: %v", b["grpc"].Unmet)
	}
	if !b["rest+proto"].Fits || !b["graphql"].Fits || b["rest"].Fits {
		t.Errorf("rest+proto %v, graphql %v, rest %v", b["rest+proto"].Unmet, b["graphql"].Unmet, b["rest"].Unmet)
	}
}

func TestMemoryBudgetCountsTheBroker(t *testing.T) {
	a := byName(advise(t, Requirements{Model: "text", Count: 100, MemoryMiB: 200}, quick(t)))
	if a["kafka"].Fits || !strings.Contains(a["kafka"].Unmet[0], "memory") {
		t.Errorf("kafka (a JVM broker) within 200 MiB: %v", a["kafka"].Unmet)
	}
	if !a["nats"].Fits || !a["grpc"].Fits {
		t.Errorf("nats %v, grpc %v", a["nats"].Unmet, a["grpc"].Unmet)
	}
}

func TestNothingMeasuredSaysWhatIsMissing(t *testing.T) {
	a := advise(t, Requirements{Model: "user", Count: 1000, Topology: "chain:5"}, quick(t))
	if len(a.Ranked) != 0 || len(a.Missing) != 1 || !strings.Contains(a.Missing[0], "they measured text×100 through direct") {
		t.Errorf("ranked %d, missing %q", len(a.Ranked), a.Missing)
	}
	b := advise(t, Requirements{Model: "payment", Count: 7}, quick(t))
	if !strings.Contains(b.Basis, "nearest") || len(b.Missing) != 1 || !strings.Contains(b.Missing[0], "payment×7") {
		t.Errorf("basis %q, missing %q", b.Basis, b.Missing)
	}
}

func TestValidateNamesTheField(t *testing.T) {
	for _, c := range []struct {
		req  Requirements
		want string
	}{
		{Requirements{Count: 1}, "model"},
		{Requirements{Model: "nope", Count: 1}, "model"},
		{Requirements{Model: "user"}, "count"},
		{Requirements{Model: "user", Count: 1, Percentile: 100}, "percentile"},
		{Requirements{Model: "user", Count: 1, Topology: "ring"}, "topology"},
		{Requirements{Model: "user", Count: 1, Stacks: []string{"smoke-signals"}}, "stacks"},
		{Requirements{Model: "user", Count: 1, Rate: -1}, "negative"},
	} {
		c.req.Defaults()
		if err := c.req.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error naming %s", c.req, err, c.want)
		}
	}
}

// testdata/capacity.jsonl is `hopbench advise --model text --count 100
// --rate 1000 --sla 20ms --measure --stacks rest,grpc,nats` in an empty
// directory on the development machine (2026-11-23): a capacity search
// per stack from 1000 req/s.
func capacities(t *testing.T) []results.Record { return fixture(t, "testdata/capacity.jsonl") }

func TestAnSLAAtARateIsJudgedFromCapacitySearches(t *testing.T) {
	recs := capacities(t)
	a := advise(t, Requirements{Model: "text", Count: 100, Rate: 1000, SLA: 20 * time.Millisecond}, recs)
	if len(a.Ranked) != 3 || a.NeedsMeasurement() {
		t.Fatalf("%d ranked, needs measurement %v", len(a.Ranked), a.NeedsMeasurement())
	}
	for i, s := range a.Ranked {
		if !s.Fits || s.Headroom < 1 {
			t.Errorf("%s: fits %v, headroom %v, unmet %q", s.Name, s.Fits, s.Headroom, s.Unmet)
		}
		if i > 0 && s.Headroom > a.Ranked[i-1].Headroom {
			t.Errorf("%s (headroom ×%.1f) ranks below %s (×%.1f)", s.Name, s.Headroom, a.Ranked[i-1].Name, a.Ranked[i-1].Headroom)
		}
		ev := strings.Join(s.Evidence, "\n")
		if !strings.Contains(ev, "at 1000 req/s, open loop") || !strings.Contains(ev, "(capacity:p99<=20ms, 1 repetition), headroom ×") {
			t.Errorf("%s: evidence %q names no capacity run", s.Name, s.Evidence)
		}
	}
	// The capacity and headroom are the records' own.
	for _, r := range recs {
		if got := byName(a)[r.Stack].Headroom; got != r.CapacityRPS/1000 {
			t.Errorf("%s: headroom %v, record's capacity %v", r.Stack, got, r.CapacityRPS)
		}
	}
	// Asked beyond what any search held, a stack falls short, by its figure.
	b := advise(t, Requirements{Model: "text", Count: 100, Rate: 12000, SLA: 20 * time.Millisecond}, recs)
	rest := byName(b)["rest"]
	if rest.Fits || rest.NotMeasured || !strings.Contains(strings.Join(rest.Unmet, ""), "short of the 12000 req/s needed") {
		t.Errorf("rest at 12000 req/s: fits %v, unmet %q", rest.Fits, rest.Unmet)
	}
	// A tighter SLA is read off the same probes' latencies.
	c := advise(t, Requirements{Model: "text", Count: 100, Rate: 1000, SLA: 100 * time.Microsecond}, recs)
	for _, s := range c.Ranked {
		if s.Fits {
			t.Errorf("%s fits a p99 of 100µs: evidence %q", s.Name, s.Evidence)
		}
	}
}

// searchRecord is a completed capacity search of grpc echoing text×100
// whose probes are at rates, each meeting the 10ms SLA or not (p99 1ms
// or 50ms), the last one blamed on the generator when generator is set.
func searchRecord(rep int, probes map[float64]bool, generator float64) results.Record {
	r := results.Record{Case: "grpc capacity", Repetition: rep, Stack: "grpc", Topology: "direct", Op: "echo", Model: "text", Count: 100,
		Load: "capacity:p99<=10ms", Outcome: results.OutcomeOK}
	c := &results.SearchResult{Percentile: 99, SLAUs: 10_000, Step: -1}
	for _, rate := range slices.Sorted(maps.Keys(probes)) {
		st := results.Step{Value: rate, RPS: rate, Requests: int64(rate), Latency: stats.Summary{Count: int64(rate), P99Us: 50_000}, PercentileUs: 50_000, Probe: results.ProbeOverSLA}
		if probes[rate] {
			st.Latency.P99Us, st.PercentileUs, st.Probe = 1000, 1000, results.ProbeWithin
			c.RPS, c.Step = rate, len(r.Steps)
		}
		r.Steps = append(r.Steps, st)
	}
	if generator > 0 {
		r.Steps = append(r.Steps, results.Step{Value: generator, RPS: generator / 2, Requests: int64(generator / 2), Latency: stats.Summary{Count: 1, P99Us: 50_000}, PercentileUs: 50_000, Probe: results.ProbeGenerator})
		c.LowerBound = true
	}
	r.Capacity, r.CapacityRPS = c, c.RPS
	return r
}

func TestACaseFitsByTheMedianOfItsRepetitions(t *testing.T) {
	req := Requirements{Model: "text", Count: 100, Rate: 1500, SLA: 10 * time.Millisecond}
	// One repetition held 4000 req/s, two only 1000: the case holds 1000.
	recs := []results.Record{
		searchRecord(0, map[float64]bool{1000: true, 2000: true, 4000: true, 8000: false}, 0),
		searchRecord(1, map[float64]bool{1000: true, 2000: false}, 0),
		searchRecord(2, map[float64]bool{1000: true, 2000: false}, 0),
	}
	g := byName(advise(t, req, recs))["grpc"]
	if g.Fits || !strings.Contains(strings.Join(g.Unmet, ""), "up to 1000 req/s (median of the runs), short of the 1500") {
		t.Errorf("fits %v on one repetition of three: unmet %q", g.Fits, g.Unmet)
	}
	// A search the generator stopped says nothing about the rates above it.
	limited := []results.Record{searchRecord(0, map[float64]bool{1000: true}, 2000)}
	g = byName(advise(t, req, limited))["grpc"]
	if g.Fits || !g.NotMeasured || !strings.Contains(strings.Join(g.Unmet, ""), "held ≥ 1000 req/s") {
		t.Errorf("a generator-limited search judged: fits %v, not measured %v, unmet %q", g.Fits, g.NotMeasured, g.Unmet)
	}
}

// A rate without an SLA, judged where every case is a capacity search:
// no closed loop to cite, and no crash for want of one.
func TestARateAmongCapacitySearchesOnly(t *testing.T) {
	recs := []results.Record{searchRecord(0, map[float64]bool{1000: true, 2000: false}, 0)}
	recs[0].RPS = 1000
	g := byName(advise(t, Requirements{Model: "text", Count: 100, Rate: 5000}, recs))["grpc"]
	if g.Fits {
		t.Errorf("fits 5000 req/s on a search that held 1000: %+v", g)
	}
}

// With schema trials in the results, schema evolution is judged from
// them, not from what codecs declare: each stack's evidence cites the
// runs, what was not kept is unmet by name, and among stacks as unmet the
// one that kept more changes ranks first.
func TestSchemaEvolutionIsJudgedFromTrialsWhenMeasured(t *testing.T) {
	recs := quick(t)
	trial := func(change, path string, o evolution.Outcome) evolution.Trial {
		return evolution.Trial{Change: change, Path: path, Count: 3, Outcome: o, Others: evolution.Kept}
	}
	recs = append(recs,
		results.Record{Experiment: "evolution", Run: 7, Stack: "rest+proto", Evolution: []evolution.Trial{
			trial("field-added", "v2,v1,v2", evolution.Kept), trial("scalar-widened", "v2,v1,v2", evolution.Corrupted),
			trial("field-added", "v2,v2,v2", evolution.Kept)}},
		results.Record{Experiment: "evolution", Run: 8, Stack: "rest", Evolution: []evolution.Trial{
			trial("field-added", "v2,v1,v2", evolution.Dropped), trial("scalar-widened", "v2,v1,v2", evolution.Refused)}},
	)
	a := advise(t, Requirements{Model: "text", Count: 100, SchemaEvolution: true, Stacks: []string{"rest", "rest+proto"}}, recs)
	if len(a.Ranked) != 2 || a.Ranked[0].Name != "rest+proto" {
		t.Fatalf("ranked %+v, want rest+proto first", a.Ranked)
	}
	proto, rest := a.Ranked[0], a.Ranked[1]
	if proto.Fits || !strings.Contains(strings.Join(proto.Unmet, ""), "scalar-widened over v2,v1,v2: corrupted") {
		t.Errorf("rest+proto unmet %v", proto.Unmet)
	}
	if !slices.Contains(proto.Evidence, "schema trials: 1 of 2 changes kept through nodes of the other version (evolution run 7)") {
		t.Errorf("rest+proto evidence %v", proto.Evidence)
	}
	if rest.Evolution == nil || rest.Evolution.Kept != 0 || !strings.Contains(strings.Join(rest.Unmet, ""), "field-added over v2,v1,v2: dropped") {
		t.Errorf("rest: %+v, unmet %v", rest.Evolution, rest.Unmet)
	}
}
