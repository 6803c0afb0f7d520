package metrics

import (
	"context"
	"slices"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/hopbench/hopbench/internal/load"
)

// MaxCases bounds the label sets a command exports: the runs of at most
// this many (stack, case) pairs have series of their own, and every later
// pair's are counted together under stack and case "other". A scrape
// stays bounded whatever the spec: about 30 series a pair.
const MaxCases = 100

// Other is the stack and case label of the pairs beyond MaxCases.
const Other = "other"

// Case names a run's series: its stack and its case (experiment.Run's
// Case, such as "grpc direct echo text×10 closed:32"), the only labels
// besides an error's class. Duration or Requests end its measured
// window, for its progress.
type Case struct {
	Stack, Name string
	Duration    time.Duration
	Requests    int64
}

// board holds what the exporters read: the series of each (stack, case),
// fed by the runs' ticks, and the command's count of runs. It is the
// exporters' metric.Producer, so that both read one set of figures.
type board struct {
	mu     sync.Mutex
	start  time.Time
	series []*series
	byKey  map[[2]string]*series
	// runsDone counts the runs ended; runsPlanned is how many the
	// command makes in all, as far as it knows (0: not said).
	runsDone, runsPlanned int64
}

// series is one (stack, case)'s figures: counters over every run of it,
// and while a run of it measures, that run's gauges.
type series struct {
	attrs    attribute.Set
	start    time.Time
	requests int64
	errors   load.ClassCounts
	buckets  [len(load.LatencyBounds) + 1]uint64
	sum      time.Duration
	// running is true while a run of the case measures: the gauges
	// below are exported only then, progress also after.
	running          bool
	inFlight         int64
	intended         float64 // 0: a closed loop, none exported
	achieved         float64
	ticked           bool // a second has closed in the current run
	progress         float64
	progressExported bool
}

func newBoard() *board {
	return &board{start: time.Now(), byKey: map[[2]string]*series{}}
}

// open is c's series, made on first use, or the pairs' beyond MaxCases.
func (b *board) open(c Case) *series {
	b.mu.Lock()
	defer b.mu.Unlock()
	key := [2]string{c.Stack, c.Name}
	if s, ok := b.byKey[key]; ok {
		return s
	}
	if len(b.byKey) >= MaxCases {
		key = [2]string{Other, Other}
		if s, ok := b.byKey[key]; ok {
			return s
		}
	}
	s := &series{attrs: attribute.NewSet(attribute.String("stack", key[0]), attribute.String("case", key[1])), start: time.Now()}
	b.byKey[key] = s
	b.series = append(b.series, s)
	return s
}

// Produce is every metric as it stands, for a collection: cumulative
// counters and histograms from each series' start, gauges as sampled.
func (b *board) Produce(context.Context) ([]metricdata.ScopeMetrics, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	ms := []metricdata.Metrics{b.requests(now), b.errors(now), b.durations(now)}
	for _, g := range gauges {
		ms = append(ms, b.gauge(g, now))
	}
	ms = append(ms, b.runs(now)...)
	// A metric with no point yet (no run has begun) is left out: some
	// receivers take an empty one for a malformed one.
	ms = slices.DeleteFunc(ms, func(m metricdata.Metrics) bool { return pointCount(m) == 0 })
	return []metricdata.ScopeMetrics{{Scope: instrumentation.Scope{Name: scopeName}, Metrics: ms}}, nil
}

// pointCount counts m's data points.
func pointCount(m metricdata.Metrics) int {
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		return len(d.DataPoints)
	case metricdata.Histogram[float64]:
		return len(d.DataPoints)
	case metricdata.Gauge[float64]:
		return len(d.DataPoints)
	case metricdata.Gauge[int64]:
		return len(d.DataPoints)
	}
	return 0
}

// scopeName is the instrumentation scope of every metric (left out of
// Prometheus's labels).
const scopeName = "github.com/hopbench/hopbench/internal/metrics"

func counter(name, unit, desc string, points []metricdata.DataPoint[int64]) metricdata.Metrics {
	return metricdata.Metrics{Name: name, Unit: unit, Description: desc,
		Data: metricdata.Sum[int64]{Temporality: metricdata.CumulativeTemporality, IsMonotonic: true, DataPoints: points}}
}

func (b *board) requests(now time.Time) metricdata.Metrics {
	points := make([]metricdata.DataPoint[int64], 0, len(b.series))
	for _, s := range b.series {
		points = append(points, metricdata.DataPoint[int64]{Attributes: s.attrs, StartTime: s.start, Time: now, Value: s.requests})
	}
	return counter("hopbench.requests", "{request}", "Requests of the measured windows that ended, failed ones included.", points)
}

func (b *board) errors(now time.Time) metricdata.Metrics {
	classes := load.ClassNames()
	points := make([]metricdata.DataPoint[int64], 0, len(b.series)*len(classes))
	for _, s := range b.series {
		for i, class := range classes {
			attrs := attribute.NewSet(append(s.attrs.ToSlice(), attribute.String("class", class))...)
			points = append(points, metricdata.DataPoint[int64]{Attributes: attrs, StartTime: s.start, Time: now, Value: s.errors[i]})
		}
	}
	return counter("hopbench.errors", "{error}", "Requests of the measured windows that failed or were later than the SLA, by class.", points)
}

// bounds are load.LatencyBounds in seconds.
var bounds = func() []float64 {
	out := make([]float64, len(load.LatencyBounds))
	for i, d := range load.LatencyBounds {
		out[i] = d.Seconds()
	}
	return out
}()

func (b *board) durations(now time.Time) metricdata.Metrics {
	points := make([]metricdata.HistogramDataPoint[float64], 0, len(b.series))
	for _, s := range b.series {
		var n uint64
		for _, c := range s.buckets {
			n += c
		}
		points = append(points, metricdata.HistogramDataPoint[float64]{Attributes: s.attrs, StartTime: s.start, Time: now,
			Count: n, Bounds: bounds, BucketCounts: append([]uint64(nil), s.buckets[:]...), Sum: s.sum.Seconds()})
	}
	return metricdata.Metrics{Name: "hopbench.request.duration", Unit: "s",
		Description: "Latency of the measured windows' requests from their intended send time (refused calls have none).",
		Data:        metricdata.Histogram[float64]{Temporality: metricdata.CumulativeTemporality, DataPoints: points}}
}

// A gauge is read from each series that has one to show.
type gauge struct {
	name, unit, desc string
	value            func(s *series) (float64, bool)
}

var gauges = []gauge{
	{"hopbench.in_flight_requests", "{request}", "Calls under way as the latest second closed, while a run of the case measures.",
		func(s *series) (float64, bool) { return float64(s.inFlight), s.running && s.ticked }},
	{"hopbench.intended_rate", "{request}/s", "Requests an open loop makes due a second, while a run of the case measures.",
		func(s *series) (float64, bool) { return s.intended, s.running && s.intended > 0 }},
	{"hopbench.achieved_rate", "{request}/s", "Requests that ended in the latest whole second, while a run of the case measures.",
		func(s *series) (float64, bool) { return s.achieved, s.running && s.ticked }},
	{"hopbench.run.progress", "1", "Share of the latest run's measured window done.",
		func(s *series) (float64, bool) { return s.progress, s.progressExported }},
}

func (b *board) gauge(g gauge, now time.Time) metricdata.Metrics {
	var points []metricdata.DataPoint[float64]
	for _, s := range b.series {
		if v, ok := g.value(s); ok {
			points = append(points, metricdata.DataPoint[float64]{Attributes: s.attrs, Time: now, Value: v})
		}
	}
	return metricdata.Metrics{Name: g.name, Unit: g.unit, Description: g.desc, Data: metricdata.Gauge[float64]{DataPoints: points}}
}

// runs are the command's runs ended, and planned when it has said.
func (b *board) runs(now time.Time) []metricdata.Metrics {
	done := counter("hopbench.runs", "{run}", "Runs ended.", []metricdata.DataPoint[int64]{{StartTime: b.start, Time: now, Value: b.runsDone}})
	if b.runsPlanned == 0 {
		return []metricdata.Metrics{done}
	}
	planned := metricdata.Metrics{Name: "hopbench.runs.planned", Unit: "{run}", Description: "Runs the command makes in all, as far as it knows.",
		Data: metricdata.Gauge[int64]{DataPoints: []metricdata.DataPoint[int64]{{Time: now, Value: b.runsPlanned}}}}
	return []metricdata.Metrics{done, planned}
}
