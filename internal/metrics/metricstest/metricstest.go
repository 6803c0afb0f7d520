// Package metricstest is a real OTLP receiver for tests: the collector's
// metrics service, from the OpenTelemetry protocol's own definitions,
// served over gRPC on a free loopback port.
package metricstest

import (
	"context"
	"net"
	"sync"
	"testing"

	collectormetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/grpc"
)

// Receiver keeps every push it is sent.
type Receiver struct {
	collectormetrics.UnimplementedMetricsServiceServer
	// Addr is where it listens, HOST:PORT on 127.0.0.1.
	Addr   string
	srv    *grpc.Server
	served chan struct{}
	mu     sync.Mutex
	pushes []*collectormetrics.ExportMetricsServiceRequest
}

// NewReceiver serves a Receiver until t ends.
func NewReceiver(t testing.TB) *Receiver {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &Receiver{Addr: ln.Addr().String(), srv: grpc.NewServer(), served: make(chan struct{})}
	collectormetrics.RegisterMetricsServiceServer(r.srv, r)
	go func() { r.srv.Serve(ln); close(r.served) }() //nolint:errcheck // ends with Stop
	t.Cleanup(r.Stop)
	return r
}

// Stop stops serving: pushes from now on fail.
func (r *Receiver) Stop() {
	r.srv.Stop()
	<-r.served
}

// Export takes a push.
func (r *Receiver) Export(_ context.Context, req *collectormetrics.ExportMetricsServiceRequest) (*collectormetrics.ExportMetricsServiceResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pushes = append(r.pushes, req)
	return &collectormetrics.ExportMetricsServiceResponse{}, nil
}

// Pushes counts the pushes taken.
func (r *Receiver) Pushes() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pushes)
}

// Latest is the metric named name in the latest push that had it; nil
// when none had.
func (r *Receiver) Latest(name string) *metricspb.Metric {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.pushes) - 1; i >= 0; i-- {
		for _, rm := range r.pushes[i].ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					if m.Name == name {
						return m
					}
				}
			}
		}
	}
	return nil
}

// Service is the service.name of the resource of the latest push.
func (r *Receiver) Service() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.pushes) == 0 || len(r.pushes[len(r.pushes)-1].ResourceMetrics) == 0 {
		return ""
	}
	for _, kv := range r.pushes[len(r.pushes)-1].ResourceMetrics[0].GetResource().GetAttributes() {
		if kv.Key == "service.name" {
			return kv.GetValue().GetStringValue()
		}
	}
	return ""
}

// SumOf adds the points of an integer sum whose attributes hold every
// pair of want (nil: every point).
func SumOf(m *metricspb.Metric, want map[string]string) int64 {
	var n int64
	for _, p := range m.GetSum().GetDataPoints() {
		if holds(p.Attributes, want) {
			n += p.GetAsInt()
		}
	}
	return n
}

func holds(attrs []*commonpb.KeyValue, want map[string]string) bool {
	found := 0
	for _, kv := range attrs {
		if v, ok := want[kv.Key]; ok && kv.GetValue().GetStringValue() == v {
			found++
		}
	}
	return found == len(want)
}
