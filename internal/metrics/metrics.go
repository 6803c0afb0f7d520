// Package metrics exports a load's figures live, as each measured second
// closes: served to Prometheus on /metrics and pushed over OTLP, both
// read through the OpenTelemetry SDK from one set of figures that the
// load engine's per-second ticks feed (never a request's own values).
package metrics

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/hopbench/hopbench/internal/environment"
)

// Config says where live metrics go; the zero Config sends them nowhere.
type Config struct {
	// Listen serves Prometheus's /metrics at this address: a bare port
	// (":9464") binds 127.0.0.1, a host given is taken as given. Empty:
	// no server.
	Listen string
	// Linger keeps /metrics served after the command's last run until a
	// scrape has read the final figures, at most this long.
	Linger time.Duration
	// OTLPEndpoint pushes to an OTLP gRPC receiver: HOST:PORT (plain
	// text on loopback, TLS elsewhere) or an http:// (plain text) or
	// https:// URL. Empty: no push.
	OTLPEndpoint string
	// Interval is the time between pushes (default DefaultInterval);
	// Timeout bounds a push, a scrape's reading and the shutdown
	// (default DefaultTimeout).
	Interval, Timeout time.Duration
	// Warn, if set, hears what goes wrong while the command runs: a push
	// that failed (once, until one succeeds again), a server bound
	// beyond loopback.
	Warn func(msg string)
}

// Defaults of Config.
const (
	DefaultInterval = 5 * time.Second
	DefaultTimeout  = 5 * time.Second
)

// Enabled says whether c sends metrics anywhere.
func (c Config) Enabled() bool { return c.Listen != "" || c.OTLPEndpoint != "" }

func (c Config) withDefaults() Config {
	if c.Interval <= 0 {
		c.Interval = DefaultInterval
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Warn == nil {
		c.Warn = func(string) {}
	}
	return c
}

// Exporter is a command's live metrics: its runs' series and the
// exporters that read them.
type Exporter struct {
	cfg      Config
	board    *board
	provider *sdkmetric.MeterProvider
	server   *server // nil without Listen
}

// Start starts what cfg asks for: an OTLP endpoint that took a first push
// (a wrong one is said now, not after the runs) and the /metrics server
// listening. On an error nothing is left running.
func Start(ctx context.Context, cfg Config) (*Exporter, error) {
	cfg = cfg.withDefaults()
	e := &Exporter{cfg: cfg, board: newBoard()}
	res := resource.NewSchemaless(attribute.String("service.name", "hopbench"), attribute.String("service.version", environment.Version))
	readers, err := e.readers(ctx, res)
	if err != nil {
		return nil, err
	}
	opts := []sdkmetric.Option{sdkmetric.WithResource(res)}
	for _, r := range readers {
		opts = append(opts, sdkmetric.WithReader(r))
	}
	e.provider = sdkmetric.NewMeterProvider(opts...)
	if e.server != nil {
		e.server.start() // once its reader is registered: a scrape reads the board
		if !e.server.loopback {
			cfg.Warn(fmt.Sprintf("serving metrics at %s, beyond this machine's loopback: whoever reaches it reads them (there is no authentication)", e.server.addr))
		}
	}
	return e, nil
}

// readers are the exporters' readers of the board: the OTLP push's and
// the server's (listening, not yet serving).
func (e *Exporter) readers(ctx context.Context, res *resource.Resource) ([]sdkmetric.Reader, error) {
	var out []sdkmetric.Reader
	if e.cfg.OTLPEndpoint != "" {
		r, err := newPush(ctx, e.cfg, e.board, res)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if e.cfg.Listen != "" {
		srv, r, err := newServer(e.cfg, e.board)
		if err != nil {
			for _, r := range out {
				stop, cancel := e.bounded(ctx)
				r.Shutdown(stop) //nolint:errcheck // the listen error is the one to say
				cancel()
			}
			return nil, err
		}
		e.server = srv
		out = append(out, r)
	}
	return out, nil
}

// bounded is a context for stopping: ctx's values but not its end (an
// interrupted command still pushes its last figures), Timeout long.
func (e *Exporter) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), e.cfg.Timeout)
}

// Addr is where /metrics is served, "" without a server.
func (e *Exporter) Addr() string {
	if e == nil || e.server == nil {
		return ""
	}
	return e.server.addr
}

// Begin opens a run of c, counted in its series; nil for a nil e.
func (e *Exporter) Begin(c Case) *Run {
	if e == nil {
		return nil
	}
	return e.board.begin(c)
}

// Plan says how many runs the command makes in all.
func (e *Exporter) Plan(total int) {
	if e != nil {
		e.board.plan(total)
	}
}

// Close pushes the final figures, waits for a scrape of them (at most
// Linger, and not once ctx has ended: an interrupted command does not
// linger) and stops the server and the exporters, each within Timeout.
func (e *Exporter) Close(ctx context.Context) error {
	if e == nil {
		return nil
	}
	flush, cancel := e.bounded(ctx)
	err := e.provider.ForceFlush(flush)
	cancel()
	if e.server != nil {
		e.server.linger(ctx, e.cfg.Linger)
		stop, cancel := e.bounded(ctx)
		err = errors.Join(err, e.server.stop(stop))
		cancel()
	}
	stop, cancel := e.bounded(ctx)
	defer cancel()
	return errors.Join(err, e.provider.Shutdown(stop))
}
