package metrics_test

import (
	"context"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.uber.org/goleak"

	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/metrics"
	"github.com/hopbench/hopbench/internal/metrics/metricstest"
	"github.com/hopbench/hopbench/internal/results"
)

// Every server, exporter and goroutine stops with Close.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func second(sec int, n int64) load.Tick {
	t := load.Tick{Second: results.Second{T: sec, Requests: n, Errors: 1}, InFlight: 2, IntendedRate: float64(n)}
	t.ByClass[load.ClassApplication] = 1
	t.Latency[3] = uint64(n - 1)
	t.LatencySum = time.Duration(n-1) * time.Millisecond
	return t
}

func scrape(t *testing.T, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// What Prometheus scrapes is named by its conventions (hopbench_ prefix,
// unit and _total suffixes) and bounded: labels are stack, case and an
// error's class (le for buckets) and nothing else, their values the
// cases' names and the classes, never a request's own value.
func TestAScrapeIsNamedByConventionAndBounded(t *testing.T) {
	exp, err := metrics.Start(context.Background(), metrics.Config{Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{"rest direct echo text×10 rate:100": "rest", "grpc chain:5 get payment×3 closed:32": "grpc"}
	for name, stack := range cases {
		r := exp.Begin(metrics.Case{Stack: stack, Name: name, Duration: 10 * time.Second})
		for sec := range 3 {
			r.Tick(second(sec, 100))
		}
	}
	fams := scrape(t, exp.Addr())
	if err := exp.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []string{"hopbench_requests_total", "hopbench_errors_total", "hopbench_request_duration_seconds",
		"hopbench_in_flight_requests", "hopbench_intended_rate_per_second", "hopbench_achieved_rate_per_second", "hopbench_run_progress_ratio", "hopbench_runs_total"}
	var got []string
	for name := range fams {
		got = append(got, name)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("families %v, want %v", got, want)
	}
	classes := load.ClassNames()
	for name, f := range fams {
		for _, m := range f.Metric {
			checkLabels(t, name, m, cases, classes)
		}
	}
	if v := fams["hopbench_requests_total"].Metric[0].GetCounter().GetValue(); v != 300 {
		t.Errorf("requests_total %v, want 300", v)
	}
	h := fams["hopbench_request_duration_seconds"].Metric[0].GetHistogram()
	if h.GetSampleCount() != 297 || len(h.Bucket) != len(load.LatencyBounds)+1 || h.Bucket[3].GetUpperBound() != 0.001 || h.Bucket[3].GetCumulativeCount() != 297 {
		t.Errorf("histogram %v", h)
	}
}

func checkLabels(t *testing.T, family string, m *dto.Metric, cases map[string]string, classes []string) {
	t.Helper()
	labels := map[string]string{}
	for _, l := range m.Label {
		labels[l.GetName()] = l.GetValue()
	}
	if family == "hopbench_runs_total" {
		if len(labels) != 0 {
			t.Errorf("%s has labels %v", family, labels)
		}
		return
	}
	stack, ok := cases[labels["case"]]
	if !ok || labels["stack"] != stack {
		t.Errorf("%s: stack %q, case %q: not a case run", family, labels["stack"], labels["case"])
	}
	delete(labels, "stack")
	delete(labels, "case")
	if c, ok := labels["class"]; ok && family == "hopbench_errors_total" && slices.Contains(classes, c) {
		delete(labels, "class")
	}
	if len(labels) != 0 {
		t.Errorf("%s has labels beyond stack, case and an error's class: %v", family, labels)
	}
}

// A bare port binds loopback; a host given is taken as given.
func TestAMetricsAddressIsLoopbackUnlessAHostIsGiven(t *testing.T) {
	for _, c := range []struct {
		in, addr string
		loopback bool
	}{
		{":9464", "127.0.0.1:9464", true},
		{"9464", "127.0.0.1:9464", true},
		{"localhost:9464", "localhost:9464", true},
		{"[::1]:9464", "[::1]:9464", true},
		{"0.0.0.0:9464", "0.0.0.0:9464", false},
	} {
		addr, loopback, err := metrics.ListenAddr(c.in)
		if err != nil || addr != c.addr || loopback != c.loopback {
			t.Errorf("%q: %q loopback %v (%v), want %q loopback %v", c.in, addr, loopback, err, c.addr, c.loopback)
		}
	}
	if _, _, err := metrics.ListenAddr("127.0.0.1:"); err == nil {
		t.Error("no port taken")
	}
}

// The OTLP push reaches a real receiver, and the final push, at Close,
// carries the last second.
func TestOTLPPushesTheFinalTotals(t *testing.T) {
	rcv := metricstest.NewReceiver(t)
	exp, err := metrics.Start(context.Background(), metrics.Config{OTLPEndpoint: rcv.Addr})
	if err != nil {
		t.Fatal(err)
	}
	r := exp.Begin(metrics.Case{Stack: "rest", Name: "rest direct echo text×10 rate:100", Duration: 2 * time.Second})
	r.Tick(second(0, 100))
	r.Tick(second(1, 120))
	r.End()
	if err := exp.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	reqs := rcv.Latest("hopbench.requests")
	if n := metricstest.SumOf(reqs, map[string]string{"stack": "rest"}); n != 220 || reqs.GetUnit() != "{request}" {
		t.Errorf("requests %d (%s) received, want 220", n, reqs.GetUnit())
	}
	if n := metricstest.SumOf(rcv.Latest("hopbench.errors"), map[string]string{"class": "application"}); n != 2 {
		t.Errorf("application errors %d received, want 2", n)
	}
	if s := rcv.Service(); s != "hopbench" {
		t.Errorf("service.name %q", s)
	}
}

// A receiver gone while measuring is one warning, not an error or a
// stall: the pushes that fail (the final one at Close, and the last at
// shutdown) say so once.
func TestAReceiverGoneIsOneWarning(t *testing.T) {
	rcv := metricstest.NewReceiver(t)
	var warnings []string
	exp, err := metrics.Start(context.Background(), metrics.Config{OTLPEndpoint: rcv.Addr, Warn: func(m string) { warnings = append(warnings, m) }})
	if err != nil {
		t.Fatal(err)
	}
	exp.Begin(metrics.Case{Stack: "rest", Name: "rest direct echo text×10 rate:100", Duration: time.Second}).Tick(second(0, 100))
	rcv.Stop()
	if err := exp.Close(context.Background()); err != nil {
		t.Errorf("close: %v", err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "pushing metrics to "+rcv.Addr+" failed") {
		t.Errorf("warnings %q", warnings)
	}
}

// An endpoint where nothing listens is said at once, before any run.
func TestAnUnreachableOTLPEndpointIsRefusedAtStart(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	began := time.Now()
	_, err = metrics.Start(context.Background(), metrics.Config{OTLPEndpoint: addr, Timeout: 2 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "did not take a first push") {
		t.Errorf("start against %s: %v", addr, err)
	}
	if d := time.Since(began); d > 3*time.Second {
		t.Errorf("refused after %v, beyond the 2s timeout", d)
	}
}

// --otlp-endpoint reads HOST:PORT (plain text on loopback only) or a URL.
func TestOTLPEndpoints(t *testing.T) {
	for _, c := range []struct {
		in, hostPort string
		plaintext    bool
	}{
		{"127.0.0.1:4317", "127.0.0.1:4317", true},
		{"collector.example:4317", "collector.example:4317", false},
		{"http://collector.example", "collector.example:4317", true},
		{"https://127.0.0.1:4318", "127.0.0.1:4318", false},
	} {
		hp, plain, err := metrics.OTLPTarget(c.in)
		if err != nil || hp != c.hostPort || plain != c.plaintext {
			t.Errorf("%q: %q plaintext %v (%v)", c.in, hp, plain, err)
		}
	}
	for _, bad := range []string{"4317", "grpc://x:1", "http://"} {
		if _, _, err := metrics.OTLPTarget(bad); err == nil {
			t.Errorf("%q taken", bad)
		}
	}
}
