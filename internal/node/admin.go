package node

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"slices"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/rest"
)

// startAdmin serves a node's readiness and figures on loopback:
//
//	GET /ready    200 while the node serves; 503 and why when it cannot
//	              (its broker connection dropped)
//	GET /stats    Stats as JSON
//	GET /metrics  the same figures in Prometheus text format
//	POST /reset   zero the figures (the orchestrator's warm-up ends here)
func startAdmin(ctx context.Context, addr string, n *Node) (transport.Server, error) {
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("node admin: listen on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /ready", func(w http.ResponseWriter, _ *http.Request) {
		if err := n.Health(); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable) // "unavailable: ..."
			return
		}
		fmt.Fprintln(w, "ready", n.Addr())
	})
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(n.Stats())
	})
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", string(expfmt.NewFormat(expfmt.TypeTextPlain)))
		for _, mf := range metricFamilies(n.Stats()) {
			if len(mf.Metric) == 0 {
				continue // the format has no empty family: a summary before any request
			}
			if _, err := expfmt.MetricFamilyToText(w, mf); err != nil {
				return // the scraper left
			}
		}
	})
	mux.HandleFunc("POST /reset", func(w http.ResponseWriter, _ *http.Request) {
		n.ResetStats()
		w.WriteHeader(http.StatusNoContent)
	})
	srv := &http.Server{Handler: mux}
	return rest.ServeHTTP(rest.Bound(l, srv, transport.ConnLimits{MaxConns: 64}), srv), nil
}

// withEveryClass is errs with every transport error class in it.
func withEveryClass(errs map[string]int64) map[string]int64 {
	out := maps.Clone(errs)
	if out == nil {
		out = map[string]int64{}
	}
	for _, c := range transport.CodeNames() {
		out[c] += 0
	}
	return out
}

func metricFamilies(s Stats) []*dto.MetricFamily {
	gauge := func(name, help string, v float64) *dto.MetricFamily {
		return &dto.MetricFamily{Name: proto.String(name), Help: proto.String(help), Type: dto.MetricType_GAUGE.Enum(),
			Metric: []*dto.Metric{{Gauge: &dto.Gauge{Value: proto.Float64(v)}}}}
	}
	counter := &dto.MetricFamily{Name: proto.String("hopbench_node_requests_total"), Help: proto.String("Requests received."),
		Type: dto.MetricType_COUNTER.Enum(), Metric: []*dto.Metric{{Counter: &dto.Counter{Value: proto.Float64(float64(s.Requests))}}}}
	errs := &dto.MetricFamily{Name: proto.String("hopbench_node_errors_total"), Help: proto.String("Failed requests by class."),
		Type: dto.MetricType_COUNTER.Enum()}
	// Every class, at 0 until one fails, so that a healthy node's errors
	// family is there to scrape (and to rate) from the start.
	for _, class := range slices.Sorted(maps.Keys(withEveryClass(s.Errors))) {
		errs.Metric = append(errs.Metric, &dto.Metric{
			Label:   []*dto.LabelPair{{Name: proto.String("class"), Value: proto.String(class)}},
			Counter: &dto.Counter{Value: proto.Float64(float64(s.Errors[class]))}})
	}
	phases := &dto.MetricFamily{Name: proto.String("hopbench_node_phase_seconds"),
		Help: proto.String("Server time per request by phase (decode, work, downstream, encode, total), from HdrHistograms."),
		Type: dto.MetricType_SUMMARY.Enum()}
	for name, sum := range s.Phases {
		q := func(quantile float64, us int64) *dto.Quantile {
			return &dto.Quantile{Quantile: proto.Float64(quantile), Value: proto.Float64(float64(us) / 1e6)}
		}
		phases.Metric = append(phases.Metric, &dto.Metric{
			Label: []*dto.LabelPair{{Name: proto.String("phase"), Value: proto.String(name)}},
			Summary: &dto.Summary{
				SampleCount: proto.Uint64(uint64(sum.Count)),
				SampleSum:   proto.Float64(sum.MeanUs * float64(sum.Count) / 1e6),
				Quantile:    []*dto.Quantile{q(0.5, sum.P50Us), q(0.9, sum.P90Us), q(0.99, sum.P99Us), q(1, sum.MaxUs)},
			}})
	}
	return []*dto.MetricFamily{
		counter, errs, phases,
		gauge("hopbench_node_cache_hits", "Get replies served from the response cache.", float64(s.CacheHits)),
		gauge("hopbench_node_heap_alloc_bytes", "Go heap bytes allocated and in use.", float64(s.Memory.HeapAllocBytes)),
		gauge("hopbench_node_sys_bytes", "Bytes obtained from the OS by the Go runtime.", float64(s.Memory.SysBytes)),
		gauge("hopbench_node_goroutines", "Goroutines.", float64(s.Memory.Goroutines)),
	}
}
