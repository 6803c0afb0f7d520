package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/advise"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/transport"
)

func TestAdviseMeasuresAnSLAAtARateWithACapacitySearch(t *testing.T) {
	req := advise.Requirements{Model: "text", Count: 100, Rate: 1000, SLA: 20 * time.Millisecond}
	req.Defaults()
	spec, _, err := adviseSpec(req)
	if err != nil {
		t.Fatal(err)
	}
	runs := spec.Runs()
	if len(runs) != 12 {
		t.Fatalf("%d runs, want one per stack of the quick preset", len(runs))
	}
	var total time.Duration
	for _, r := range runs {
		c := r.Load.Capacity
		if c == nil || c.Start != 1000 || time.Duration(c.SLA) != 20*time.Millisecond || c.Percentile != 99 {
			t.Fatalf("%s: load %+v, want a capacity search at p99 ≤ 20ms from 1000 req/s", r.Case(), r.Load)
		}
		total += time.Duration(r.Warmup + r.Duration)
	}
	if total > 5*time.Minute-30*time.Second {
		t.Errorf("12 searches take up to %v; advise --measure promises under 5 minutes with boots and brokers", total)
	}
	oneway := req
	oneway.OneWay = true
	if spec, data, err := adviseSpec(oneway); err != nil || len(spec.Runs()) != 5 || !strings.Contains(string(data), "mode: oneway") {
		t.Errorf("one way: %v, want the five broker stacks measured one way:\n%s", err, data)
	}
	closed := advise.Requirements{Model: "text", Count: 100, Rate: 1000}
	closed.Defaults()
	_, data, err := adviseSpec(closed)
	if err != nil || !strings.Contains(string(data), "closed: {clients: 32}") {
		t.Errorf("a rate without an SLA measures throughput in a closed loop: %v\n%s", err, data)
	}
}

// Where two stacks' order at the advised payload flips between one client
// and 32, significantly in both, and no figure explains it (the stack
// ahead at 32 clients spends more CPU a request), advise says the order
// is unsettled rather than ranking on one case silently.
func TestAdviseSaysAnUnexplainedFlipIsUnsettled(t *testing.T) {
	var recs []results.Record
	add := func(stack, load string, p50 int64, rps, cpu float64) {
		for i := range 5 {
			r := results.Record{Case: stack + " direct echo text×10 " + load, Stack: stack, Topology: "direct", Op: "echo",
				Model: "text", Count: 10, Load: load, Outcome: results.OutcomeOK, Repetition: i}
			r.Requests, r.P50Us, r.P99Us, r.RPS = 1000, p50+int64(i), 2*p50, rps+float64(i)
			r.Nodes = []results.Node{{Usage: results.Usage{CPUUsPerReq: cpu}}}
			recs = append(recs, r)
		}
	}
	add("grpc", "closed:1", 100, 1, 50)
	add("rest", "closed:1", 150, 1, 60)
	add("grpc", "closed:32", 900, 20000, 50)
	add("rest", "closed:32", 800, 25000, 60)
	req := advise.Requirements{Model: "text", Count: 10}
	req.Defaults()
	adv, err := advise.Advise(req, recs)
	if err != nil {
		t.Fatal(err)
	}
	if err := unsettled(adv, recs); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := adv.Write(&b); err != nil {
		t.Fatal(err)
	}
	if len(adv.Unsettled) != 1 || !strings.Contains(b.String(), "Unsettled: direct · echo · text×10: grpc leads rest at 1 client") {
		t.Errorf("advice:\n%s\nwant the flip between grpc and rest said unsettled", b.String())
	}
}

// advise --measure for a feed runs feed:N on the stacks that carry feeds
// only, and for a first message at a rate adds a run at that rate (a
// capacity search's probes keep no first message).
func TestAdviseMeasuresAFeedOnTheStacksThatCarryFeeds(t *testing.T) {
	req := advise.Requirements{Model: "user", Count: 3, Feed: 100, Rate: 500, SLA: 20 * time.Millisecond, FirstMessageSLA: 5 * time.Millisecond}
	req.Defaults()
	spec, data, err := adviseSpec(req)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `ops: ["feed:100"]`) || !strings.Contains(string(data), "- rate: {rate: 500}") {
		t.Errorf("spec:\n%s", data)
	}
	stacks := map[string]bool{}
	var searches, rates int
	for _, r := range spec.Runs() {
		stacks[r.Stack] = true
		if r.Op != "feed:100" {
			t.Errorf("%s: op %q, want feed:100", r.Case(), r.Op)
		}
		if err := transport.FeedRefusal(strings.SplitN(r.Stack, "+", 2)[0]); err != nil {
			t.Errorf("%s measured, which carries no feed: %v", r.Stack, err)
		}
		switch {
		case r.Load.Capacity != nil:
			searches++
		case r.Load.Rate != nil:
			rates++
		}
	}
	if len(stacks) == 0 || searches != len(stacks) || rates != len(stacks) {
		t.Errorf("stacks %v, %d searches, %d rate runs: want one of each a stack", stacks, searches, rates)
	}
	req.Stacks = []string{"amqp", "nats"}
	if _, _, err := adviseSpec(req); err == nil || !strings.Contains(err.Error(), "none of the stacks asked (amqp, nats) carries feeds") {
		t.Errorf("measuring feeds on amqp and nats: %v", err)
	}
}
