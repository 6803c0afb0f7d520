package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/hopbench/hopbench/internal/network"
)

// server serves the board to Prometheus on /metrics.
type server struct {
	http     *http.Server
	listener net.Listener
	addr     string
	loopback bool
	served   chan error
	scrapes  scrapeWatch
}

// ListenAddr is where --metrics-listen s serves: a bare port (":9464" or
// "9464") on 127.0.0.1, a host given as given; loopback says whether it
// stays on this machine's loopback.
func ListenAddr(s string) (addr string, loopback bool, err error) {
	if !strings.Contains(s, ":") {
		s = ":" + s
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil || port == "" {
		return "", false, fmt.Errorf("--metrics-listen %q: want [HOST]:PORT, e.g. :9464 (on 127.0.0.1)", s)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), network.IsLoopbackHost(host), nil
}

// newServer listens where cfg says, with a Prometheus exporter reading b
// through a registry of its own (none of the process's globals): only
// hopbench's metrics, their labels the series' alone (no scope or
// target_info labels).
func newServer(cfg Config, b *board) (*server, sdkmetric.Reader, error) {
	addr, loopback, err := ListenAddr(cfg.Listen)
	if err != nil {
		return nil, nil, err
	}
	reg := prometheus.NewRegistry()
	exp, err := otelprom.New(otelprom.WithRegisterer(reg), otelprom.WithProducer(b), otelprom.WithoutScopeInfo(), otelprom.WithoutTargetInfo())
	if err != nil {
		return nil, nil, fmt.Errorf("metrics: the Prometheus exporter: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("--metrics-listen %s: %w", cfg.Listen, err)
	}
	s := &server{listener: ln, addr: ln.Addr().String(), loopback: loopback, served: make(chan error, 1)}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", s.scrapes.watch(promhttp.HandlerFor(reg, promhttp.HandlerOpts{Timeout: cfg.Timeout})))
	s.http = &http.Server{Handler: mux, ReadHeaderTimeout: cfg.Timeout, ReadTimeout: cfg.Timeout,
		WriteTimeout: 2 * cfg.Timeout, IdleTimeout: time.Minute}
	return s, exp, nil
}

func (s *server) start() {
	go func() { s.served <- s.http.Serve(s.listener) }()
}

// linger waits for a scrape begun from now on, at most d, and not once
// ctx has ended.
func (s *server) linger(ctx context.Context, d time.Duration) {
	if d <= 0 || ctx.Err() != nil {
		return
	}
	seen := s.scrapes.from(time.Now())
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-seen:
	case <-t.C:
	case <-ctx.Done():
	}
}

// stop ends the server: its scrapes under way finish within ctx, or are
// cut off.
func (s *server) stop(ctx context.Context) error {
	err := s.http.Shutdown(ctx)
	if err != nil {
		err = errors.Join(err, s.http.Close())
	}
	if serr := <-s.served; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

// scrapeWatch tells when a scrape begun after a moment has been served:
// the final figures have then been read.
type scrapeWatch struct {
	mu    sync.Mutex
	after time.Time // zero until from is called
	seen  chan struct{}
}

func (w *scrapeWatch) watch(h http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		began := time.Now()
		h.ServeHTTP(rw, r)
		w.served(began)
	})
}

// from is closed once a scrape begun at t or later has been served.
func (w *scrapeWatch) from(t time.Time) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.after, w.seen = t, make(chan struct{})
	return w.seen
}

func (w *scrapeWatch) served(began time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen != nil && !w.after.IsZero() && !began.Before(w.after) {
		close(w.seen)
		w.seen = nil
	}
}
