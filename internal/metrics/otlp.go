package metrics

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	"google.golang.org/grpc/credentials"

	"github.com/hopbench/hopbench/internal/network"
)

// OTLPTarget reads --otlp-endpoint s: HOST:PORT, in plain text on
// loopback and over TLS elsewhere, or a URL whose scheme says which
// (http: plain text, https: TLS; port 4317 by default).
func OTLPTarget(s string) (hostPort string, plaintext bool, err error) {
	bad := fmt.Errorf("--otlp-endpoint %q: want HOST:PORT, or an http:// or https:// URL", s)
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil || u.Hostname() == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return "", false, bad
		}
		port := u.Port()
		if port == "" {
			port = "4317"
		}
		return net.JoinHostPort(u.Hostname(), port), u.Scheme == "http", nil
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil || host == "" || port == "" {
		return "", false, bad
	}
	return s, network.IsLoopbackHost(host), nil
}

// newPush is the OTLP push's reader of b: every Interval, and at the end,
// b's figures go to cfg's endpoint, which must take a first push now.
// Failed pushes are not retried within a push: the next one carries the
// same cumulative totals, so a push lost costs time, not counts.
func newPush(ctx context.Context, cfg Config, b *board, res *resource.Resource) (sdkmetric.Reader, error) {
	hostPort, plaintext, err := OTLPTarget(cfg.OTLPEndpoint)
	if err != nil {
		return nil, err
	}
	opts := []otlpmetricgrpc.Option{otlpmetricgrpc.WithEndpoint(hostPort), otlpmetricgrpc.WithTimeout(cfg.Timeout),
		otlpmetricgrpc.WithRetry(otlpmetricgrpc.RetryConfig{Enabled: false})}
	if plaintext {
		opts = append(opts, otlpmetricgrpc.WithInsecure())
	} else {
		opts = append(opts, otlpmetricgrpc.WithTLSCredentials(credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12})))
	}
	exp, err := otlpmetricgrpc.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("--otlp-endpoint %s: %w", cfg.OTLPEndpoint, err)
	}
	first, _ := b.Produce(ctx)
	pctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	if err := exp.Export(pctx, &metricdata.ResourceMetrics{Resource: res, ScopeMetrics: first}); err != nil {
		exp.Shutdown(context.WithoutCancel(pctx)) //nolint:errcheck // the push's error is the one to say
		return nil, fmt.Errorf("--otlp-endpoint %s: the receiver did not take a first push within %s: %w", cfg.OTLPEndpoint, cfg.Timeout, err)
	}
	p := &push{Exporter: exp, endpoint: cfg.OTLPEndpoint, warn: cfg.Warn}
	return sdkmetric.NewPeriodicReader(p, sdkmetric.WithProducer(b), sdkmetric.WithInterval(cfg.Interval), sdkmetric.WithTimeout(cfg.Timeout)), nil
}

// push is the OTLP exporter, saying when pushes start failing and when
// they work again instead of handing errors to OpenTelemetry's global
// handler.
type push struct {
	sdkmetric.Exporter
	endpoint string
	warn     func(string)
	mu       sync.Mutex
	failing  bool
}

func (p *push) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	err := p.Exporter.Export(ctx, rm)
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case err != nil && !p.failing:
		p.failing = true
		p.warn(fmt.Sprintf("pushing metrics to %s failed: %v (trying again every interval; the totals are cumulative, so the next push that succeeds carries them)", p.endpoint, err))
	case err == nil && p.failing:
		p.failing = false
		p.warn(fmt.Sprintf("pushing metrics to %s works again", p.endpoint))
	}
	return nil
}
