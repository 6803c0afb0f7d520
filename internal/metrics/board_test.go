package metrics

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/results"
)

// byName is a collection's metrics by name.
func byName(t *testing.T, b *board) map[string]metricdata.Metrics {
	t.Helper()
	sms, err := b.Produce(context.Background())
	if err != nil || len(sms) != 1 {
		t.Fatalf("produce: %v, %d scopes", err, len(sms))
	}
	out := map[string]metricdata.Metrics{}
	for _, m := range sms[0].Metrics {
		out[m.Name] = m
	}
	return out
}

// tick is a second of n requests, errs of them timeouts, each latency d.
func tick(sec int, n, errs int64, d time.Duration, rate float64) load.Tick {
	t := load.Tick{Second: results.Second{T: sec, Requests: n, Errors: errs}, InFlight: 3, IntendedRate: rate}
	t.ByClass[load.ClassTimeout] = errs
	i := 0
	for d > load.LatencyBounds[i] {
		i++
	}
	t.Latency[i] = uint64(n)
	t.LatencySum = time.Duration(n) * d
	return t
}

func gaugeOf(m metricdata.Metrics) []metricdata.DataPoint[float64] {
	return m.Data.(metricdata.Gauge[float64]).DataPoints
}

// A run's seconds and late requests add up in its case's counters and
// histogram; its gauges show while it runs, its progress also after.
func TestARunsTicksAddUpInItsSeries(t *testing.T) {
	b := newBoard()
	b.plan(2)
	r := b.begin(Case{Stack: "grpc", Name: "grpc direct echo text×10 rate:100", Duration: 4 * time.Second})
	r.Tick(tick(0, 100, 2, 3*time.Millisecond, 100))
	r.Tick(tick(1, 100, 0, 3*time.Millisecond, 100))
	late := tick(0, 5, 1, 30*time.Millisecond, 0)
	late.Late = 5
	r.Tick(late)
	ms := byName(t, b)
	want := attribute.NewSet(attribute.String("stack", "grpc"), attribute.String("case", "grpc direct echo text×10 rate:100"))
	reqs := ms["hopbench.requests"].Data.(metricdata.Sum[int64])
	if len(reqs.DataPoints) != 1 || reqs.DataPoints[0].Value != 205 || !reqs.DataPoints[0].Attributes.Equals(&want) || !reqs.IsMonotonic {
		t.Errorf("requests: %+v", reqs)
	}
	var timeouts int64
	for _, p := range ms["hopbench.errors"].Data.(metricdata.Sum[int64]).DataPoints {
		if v, _ := p.Attributes.Value("class"); v.AsString() == "timeout" {
			timeouts += p.Value
		} else if p.Value != 0 {
			t.Errorf("errors of class %s: %d", v.AsString(), p.Value)
		}
	}
	h := ms["hopbench.request.duration"].Data.(metricdata.Histogram[float64]).DataPoints[0]
	if timeouts != 3 || h.Count != 205 || h.BucketCounts[5] != 200 || h.BucketCounts[8] != 5 || len(h.Bounds) != len(load.LatencyBounds) {
		t.Errorf("timeouts %d; histogram count %d, buckets %v", timeouts, h.Count, h.BucketCounts)
	}
	for name, want := range map[string]float64{"hopbench.in_flight_requests": 3, "hopbench.intended_rate": 100, "hopbench.achieved_rate": 100, "hopbench.run.progress": 0.5} {
		if p := gaugeOf(ms[name]); len(p) != 1 || p[0].Value != want {
			t.Errorf("%s: %+v, want %v", name, p, want)
		}
	}
	r.End()
	ms = byName(t, b)
	for _, name := range []string{"hopbench.in_flight_requests", "hopbench.intended_rate", "hopbench.achieved_rate"} {
		if _, ok := ms[name]; ok {
			t.Errorf("%s still exported after the run", name)
		}
	}
	runs := ms["hopbench.runs"].Data.(metricdata.Sum[int64]).DataPoints[0].Value
	planned := ms["hopbench.runs.planned"].Data.(metricdata.Gauge[int64]).DataPoints[0].Value
	if _, ok := ms["hopbench.run.progress"]; !ok || runs != 1 || planned != 2 {
		t.Errorf("after the run: progress exported %v, runs %d of %d", ok, runs, planned)
	}
}

// The last second, closed with the window, holds only the calls that
// outran it: the achieved rate stays the last whole second's.
func TestTheAchievedRateIsAWholeSeconds(t *testing.T) {
	b := newBoard()
	r := b.begin(Case{Stack: "rest", Name: "rest direct echo text×10 rate:50", Duration: 2 * time.Second})
	r.Tick(tick(1, 50, 0, time.Millisecond, 50))
	r.Tick(tick(2, 1, 0, time.Millisecond, 50))
	if p := gaugeOf(byName(t, b)["hopbench.achieved_rate"]); p[0].Value != 50 {
		t.Errorf("achieved %v after the window's tail, want 50", p[0].Value)
	}
}

// A run ended by a request count has its progress by its requests.
func TestProgressByARequestCount(t *testing.T) {
	b := newBoard()
	r := b.begin(Case{Stack: "rest", Name: "rest direct echo text×10 closed:2 400 requests", Requests: 400})
	r.Tick(tick(0, 100, 0, time.Millisecond, 0))
	ms := byName(t, b)
	if p := gaugeOf(ms["hopbench.run.progress"]); p[0].Value != 0.25 {
		t.Errorf("progress %v after 100 of 400 requests", p[0].Value)
	}
	if _, ok := ms["hopbench.intended_rate"]; ok {
		t.Error("a closed loop exports an intended rate")
	}
}

// The label sets are bounded: cases beyond MaxCases share one series.
func TestCasesBeyondTheBoundShareOneSeries(t *testing.T) {
	b := newBoard()
	for i := range MaxCases + 20 {
		r := b.begin(Case{Stack: "rest", Name: fmt.Sprintf("case %d", i), Duration: time.Second})
		r.Tick(tick(0, 1, 0, time.Millisecond, 0))
		r.End()
	}
	points := byName(t, b)["hopbench.requests"].Data.(metricdata.Sum[int64]).DataPoints
	last := points[len(points)-1]
	stack, _ := last.Attributes.Value("stack")
	if len(points) != MaxCases+1 || stack.AsString() != Other || last.Value != 20 {
		t.Errorf("%d series, the last %v with %d requests; want %d, the last %q's with 20", len(points), last.Attributes.ToSlice(), last.Value, MaxCases+1, Other)
	}
}
