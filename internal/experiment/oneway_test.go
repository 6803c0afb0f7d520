package experiment

import (
	"context"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/results"
)

// A one-way spec runs end to end over a broker hopbench starts: no node,
// every message accounted for in the record, its case naming its shape
// and settings.
func TestAOneWayRunAccountsForEveryMessage(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a broker process")
	}
	x := brokerRunner(t)
	spec, err := Parse([]byte(`
mode: oneway
oneway: {consumers: 2, groups: 2}
stacks: [nats]
payloads: [{model: user, counts: [2]}]
ops: [post]
loads: [{rate: {rate: 500}}]
duration: 2s
warmup: 500ms
transport_options: {nats.jetstream: memory}
`))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := x.Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Outcome != results.OutcomeOK {
		t.Fatalf("records %+v: want one, ok", recs)
	}
	r := recs[0]
	if !strings.Contains(r.Case, "oneway fan-out 2×2 jetstream=memory") || len(r.Nodes) != 0 {
		t.Errorf("case %q with %d nodes: want its one-way shape and settings named, and no node", r.Case, len(r.Nodes))
	}
	ow := r.OneWay
	if ow == nil || ow.Published < 1000 || ow.Lost != 0 || ow.Duplicated != 0 || !ow.Drained || len(ow.Groups) != 2 {
		t.Fatalf("one-way figures %+v: want about 1250 published, nothing lost or duplicated, two groups", ow)
	}
	for _, g := range ow.Groups {
		if g.Consumed != ow.Published || len(g.PerConsumer) != 2 {
			t.Errorf("group %+v: want every one of the %d messages, over two consumers", g, ow.Published)
		}
	}
	if r.P50Us <= 0 || r.Histogram == "" || len(ow.Lag) == 0 {
		t.Errorf("p50 %d µs, histogram %d bytes, %d lag points: want the end-to-end latency and the lag recorded", r.P50Us, len(r.Histogram), len(ow.Lag))
	}
}

// One-way specs refuse what one-way runs cannot carry, by name.
func TestAOneWaySpecRefusesWhatItCannotCarry(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{"mode: oneway\nstacks: [rest]", "carries no one-way messages"},
		{"mode: oneway\nstacks: [nats]\ntopologies: [chain:2]", "topologies [direct]"},
		{"mode: oneway\nstacks: [nats]\nops: [get]", "a one-way message carries a body"},
		{"mode: oneway\nstacks: [nats]\nloads: [{ramp: {of: clients, from: 1, to: 4, step: 1, every: 1s}}]", "closed, rate and capacity loads"},
		{"mode: oneway\nstacks: [nats]\noneway: {consumers: 1000}", "consumers 1000: want 1 to 64"},
		{"stacks: [nats]\noneway: {consumers: 2}", "applies to mode oneway only"},
		{"mode: oneway\nstacks: [nats]\noneway: {encode: twice}", `oneway.encode: "twice": want once`},
		{"mode: sideways\nstacks: [nats]", `"sideways": want request (the default) or oneway`},
	} {
		base := "\npayloads: [{model: user, counts: [2]}]\n"
		if !strings.Contains(c.spec, "loads:") {
			base += "loads: [{rate: {rate: 100}}]\n"
		}
		if !strings.Contains(c.spec, "ops:") {
			base += "ops: [post]\n"
		}
		_, err := Parse([]byte(c.spec + base))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to say %q", c.spec, err, c.want)
		}
	}
}

// fresh_brokers starts the broker anew before every run: each run's
// record names another process, whose memory at rest it carries; with
// hosts it is refused.
func TestFreshBrokersStartTheBrokerAnewForEveryRun(t *testing.T) {
	if _, err := Parse([]byte("stacks: [nats]\nfresh_brokers: true\nhosts: [{name: h1}]\n")); err == nil || !strings.Contains(err.Error(), "fresh_brokers") {
		t.Errorf("fresh_brokers with hosts: %v, want it refused by name", err)
	}
	if testing.Short() {
		t.Skip("starts a broker process")
	}
	x := brokerRunner(t)
	spec, err := Parse([]byte(`
mode: oneway
fresh_brokers: true
stacks: [nats]
payloads: [{model: user, counts: [2]}]
ops: [post]
loads: [{rate: {rate: 10}}]
duration: 1s
warmup: 0s
repetitions: 2
`))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := x.Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Outcome != results.OutcomeOK || recs[1].Outcome != results.OutcomeOK {
		t.Fatalf("records %+v: want two, ok", recs)
	}
	a, b := recs[0].Brokers, recs[1].Brokers
	if len(a) != 1 || len(b) != 1 || a[0].PID == b[0].PID || !a[0].Started || !b[0].Started {
		t.Fatalf("brokers %+v and %+v: want one each, started by the run, two processes", a, b)
	}
	if b[0].AnonRSS == 0 || alive(a[0].PID) {
		t.Errorf("the second broker's anonymous RSS %d, the first alive %v: want it recorded, and the first stopped", b[0].AnonRSS, alive(a[0].PID))
	}
}
