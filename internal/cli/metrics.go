package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/hopbench/hopbench/internal/experiment"
	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/metrics"
	"github.com/hopbench/hopbench/internal/results"
)

// metricsFlags are the live metrics flags hopbench load and run share.
type metricsFlags struct{ cfg metrics.Config }

func (m *metricsFlags) add(fl *pflag.FlagSet) {
	fl.StringVar(&m.cfg.Listen, "metrics-listen", "", "serve live metrics to Prometheus at http://`ADDR`/metrics while measuring (a bare :PORT binds 127.0.0.1; see docs/metrics.md)")
	fl.DurationVar(&m.cfg.Linger, "metrics-linger", 0, "with --metrics-listen: after the last run, keep serving until a scrape has read the final figures, at most this long")
	fl.StringVar(&m.cfg.OTLPEndpoint, "otlp-endpoint", "", "push live metrics to an OTLP gRPC receiver at `HOST:PORT` (plain text on loopback, else TLS; or an http:// or https:// URL)")
}

// check refuses flags that cannot work, before anything starts.
func (m *metricsFlags) check() error {
	if m.cfg.Linger > 0 && m.cfg.Listen == "" {
		return errors.New("--metrics-linger keeps /metrics served after the runs: give --metrics-listen too")
	}
	if m.cfg.Listen != "" {
		if _, _, err := metrics.ListenAddr(m.cfg.Listen); err != nil {
			return err
		}
	}
	if m.cfg.OTLPEndpoint != "" {
		if _, _, err := metrics.OTLPTarget(m.cfg.OTLPEndpoint); err != nil {
			return err
		}
	}
	return nil
}

// start starts the exporters the flags ask for (nil when none) and says
// where the metrics go.
func (m *metricsFlags) start(ctx context.Context, a *app) (*metrics.Exporter, error) {
	if !m.cfg.Enabled() {
		return nil, nil
	}
	m.cfg.Warn = func(msg string) { fmt.Fprintf(a.stderr, "\nwarning: %s\n", msg) }
	exp, err := metrics.Start(ctx, m.cfg)
	if err != nil {
		return nil, err
	}
	if addr := exp.Addr(); addr != "" {
		fmt.Fprintf(a.stderr, "metrics: serving Prometheus metrics at http://%s/metrics\n", addr)
	}
	if m.cfg.OTLPEndpoint != "" {
		fmt.Fprintf(a.stderr, "metrics: pushing OTLP metrics to %s every %s\n", m.cfg.OTLPEndpoint, metrics.DefaultInterval)
	}
	return exp, nil
}

// closeMetrics ends exp as the command returns: a last push, a last
// scrape awaited; its error comes after the command's own.
func closeMetrics(ctx context.Context, exp *metrics.Exporter, err *error) {
	*err = cmp.Or(*err, exp.Close(ctx))
}

// caseOf is run r's series in the metrics.
func caseOf(r experiment.Run) metrics.Case {
	return metrics.Case{Stack: r.Stack, Name: r.Case(), Duration: time.Duration(r.Duration), Requests: r.Requests}
}

// exportRuns has x feed exp: each run opened as it starts, its seconds as
// they close, ended as its record is written, and the runs planned.
func exportRuns(x *experiment.Runner, exp *metrics.Exporter) {
	if exp == nil {
		return // x.OnTick stays nil: the engine counts nothing for it
	}
	var cur *metrics.Run
	done := 0
	onRun, onRecord := x.OnRun, x.OnRecord
	x.OnRun = func(i, n int, r experiment.Run) {
		exp.Plan(done + n - i)
		cur = exp.Begin(caseOf(r))
		if onRun != nil {
			onRun(i, n, r)
		}
	}
	x.OnTick = func(_ experiment.Run, t load.Tick) { cur.Tick(t) }
	x.OnRecord = func(rec *results.Record) {
		cur.End()
		done++
		if onRecord != nil {
			onRecord(rec)
		}
	}
}
