package advise

import (
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/results"
)

// One-way requirements rank the one-way runs alone, and calls the
// others: a broker's end-to-end latency is not a call's.
func TestOneWayRunsAnswerOneWayRequirementsOnly(t *testing.T) {
	oneway := func(stack string, p99 time.Duration) results.Record {
		r := feedRun(t, stack, "post", "rate:1000", p99, 0)
		r.OneWay = &results.OneWay{Consumers: 1, Published: 1000, Drained: true}
		return r
	}
	recs := []results.Record{oneway("nats", time.Millisecond), oneway("kafka", 20*time.Millisecond),
		feedRun(t, "amqp", "echo", "closed:1", 500*time.Microsecond, 0)}
	a := advise(t, Requirements{Model: "user", Count: 3, OneWay: true}, recs)
	if len(a.Ranked) != 2 || a.Ranked[0].Name != "nats" || a.Ranked[1].Name != "kafka" {
		t.Errorf("one way: ranked %+v, want nats then kafka, and no call", a.Ranked)
	}
	if calls := advise(t, Requirements{Model: "user", Count: 3}, recs); len(calls.Ranked) != 1 || calls.Ranked[0].Name != "amqp" {
		t.Errorf("calls: ranked %+v, want amqp's call alone", calls.Ranked)
	}
	if err := (&Requirements{Model: "user", Count: 3, OneWay: true, Feed: 10, Topology: "direct", Percentile: 99}).Validate(); err == nil {
		t.Error("a one-way feed was not refused")
	}
}
