package cli

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/check"
	"github.com/hopbench/hopbench/internal/environment"
	"github.com/hopbench/hopbench/internal/experiment"
	"github.com/hopbench/hopbench/internal/lease"
	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/metrics"
	"github.com/hopbench/hopbench/internal/network"
	"github.com/hopbench/hopbench/internal/oneway"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/threshold"
	"github.com/hopbench/hopbench/internal/transport"
)

type loadFlags struct {
	proto                             protoOptions
	stack, op, format, tlsDir, caFile string
	out                               string
	options                           map[string]string
	target                            load.TargetConfig
	cfg                               load.Config
	mtls, capacity                    bool
	network                           network.Profile
	metrics                           metricsFlags
	checks                            checkFlags
	oneway                            onewayFlags
	// oneWay is the one-way shape with --mode oneway, else nil.
	oneWay *oneway.Shape
}

// loadHelp is hopbench load's long help.
var loadHelp = `Drive a running node (hopbench node) with load and report latency, throughput
and errors, like ghz or wrk.

Give --clients for a closed loop (each client sends when its last reply came)
or --rate for an open loop (requests at fixed times; latency counts from when
each request was due, so a stalling server cannot hide its tail).

--capacity searches open-loop rates for the node's capacity at an SLA: the
highest rate whose --percentile (p99) of latencies stays within --sla and
whose failed calls stay under --max-errors. Rates double from --start-rate
until one fails, then are bisected to within 5 %; each probe runs --step,
and the search stops at --duration (its time budget, 40s by default). When
the generator cannot send a rate while the node is still within its SLA,
the capacity is reported as a lower bound ("≥ N").

--threshold holds the load's figures to a limit (one run: its figure
against the limit; docs/thresholds.md), listed after the figures; one
failed makes hopbench load exit 3, and --junit writes them as JUnit XML.`

func newLoadCommand(a *app) *cobra.Command {
	f := loadFlags{}
	cmd := &cobra.Command{
		Use:         "load",
		Annotations: generatesLoad,
		Short:       "Drive a running node with load and report what it measured",
		Long:        loadHelp,
		Example: `  hopbench node --stack grpc &
  hopbench load --stack grpc --op echo --model text --count 100 --clients 64 --duration 10s
  hopbench load --stack grpc --rate 1000 --duration 30s --format json
  hopbench load --stack grpc --rate 1000 --duration 30s --metrics-listen :9464
  hopbench load --stack grpc --capacity --sla 5ms --percentile 99
  hopbench load --stack grpc --op feed:100 --model user --count 5 --clients 8 --duration 10s
  hopbench node --stack rest+proto --listen 127.0.0.1:7071 &
  hopbench load --stack rest+proto --target 127.0.0.1:7071 --rate 1000 --duration 30s`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runLoad(cmd, a, &f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.stack, "stack", "rest", "stack of the node: technology[+codec][+compression]")
	fl.StringVar(&f.target.Addr, "target", "", "the node's address (default: hopbench node's default for the stack, e.g. 127.0.0.1:7070 or amqp://127.0.0.1:5672/hopbench)")
	fl.StringToStringVar(&f.options, "option", nil, "a stack's own setting, `NAME=VALUE` (repeatable; see hopbench node --help)")
	fl.StringVar(&f.op, "op", "echo", "operation: get, post, echo or feed:N (server streaming, N messages a reply)")
	fl.StringVar(&f.target.Model, "model", "text", "payload model (hopbench codec --help lists them)")
	f.proto.add(fl)
	fl.IntVar(&f.target.Count, "count", 10, "items of the model per request (or reply, for get)")
	fl.IntVar(&f.cfg.Clients, "clients", 0, "closed loop with this many clients")
	fl.Float64Var(&f.cfg.Rate, "rate", 0, "open loop at this many requests/s")
	fl.BoolVar(&f.cfg.Poisson, "poisson", false, "with --rate or --capacity: Poisson arrivals instead of evenly spaced ones")
	fl.IntVar(&f.cfg.Limits.Clients, "max-clients", 0, fmt.Sprintf("raise the bound on --clients and --workers (default %d; at most the open-file limit less 256)", load.MaxClients))
	fl.Float64Var(&f.cfg.Limits.Rate, "rate-limit", 0, fmt.Sprintf("raise the bound on --rate (default %d requests/s)", load.MaxRate))
	fl.IntVar(&f.cfg.Workers, "workers", load.DefaultWorkers, "with --rate: most requests in flight (--capacity sizes each probe's pool unless this is given)")
	fl.DurationVar(&f.cfg.Duration, "duration", 10*time.Second, "measured time (with --capacity: the search's budget, default 40s)")
	fl.Int64Var(&f.cfg.Requests, "requests", 0, "with --clients: stop after this many requests instead of --duration")
	fl.DurationVar(&f.cfg.Warmup, "warmup", 0, "load before measuring, discarded")
	fl.DurationVar(&f.cfg.SLA, "sla", load.DefaultSLA, "a reply later than this counts as an error (over_sla); with --capacity, the latency the percentile must stay within")
	fl.BoolVar(&f.capacity, "capacity", false, "search open-loop rates for the highest that meets --sla at --percentile")
	fl.Float64Var(&f.cfg.Search.Percentile, "percentile", 99, "with --capacity: the percentile held to the SLA")
	fl.Float64Var(&f.cfg.Search.MaxErrors, "max-errors", 0.001, "with --capacity: share of calls that may fail for reasons other than lateness")
	fl.DurationVar(&f.cfg.Search.Step, "step", 2*time.Second, "with --capacity: measured time of each probed rate")
	fl.Float64Var(&f.cfg.Search.Start, "start-rate", 1000, "with --capacity: the first rate probed (requests/s)")
	fl.Float64Var(&f.cfg.Search.MaxRate, "max-rate", 200_000, "with --capacity: the highest rate probed (requests/s)")
	fl.DurationVar(&f.cfg.Timeout, "timeout", load.DefaultTimeout, "give up on a call after this long")
	fl.IntVar(&f.target.Connections, "connections", 1, "clients dialled and shared by the workers")
	fl.BoolVar(&f.target.PerRequest, "per-request", false, "a new connection (and with TLS a full handshake) for every call, instead of --connections kept for the run (not kafka)")
	fl.BoolVar(&f.target.Transport.HTTP2, "http2", false, "HTTP/2 for HTTP-based stacks (h2c without TLS)")
	fl.StringVar(&f.tlsDir, "tls-dir", "", "TLS with the CA and client certificate in `DIR` (the node's --tls-dir)")
	fl.StringVar(&f.caFile, "ca", "", "TLS trusting the CA certificate in `FILE` (the node's --ca-out)")
	fl.BoolVar(&f.mtls, "mtls", false, "with --tls-dir: present the client certificate")
	fl.Uint64Var(&f.target.Seed, "seed", payload.DefaultSeed, "payload generator seed")
	fl.Var(&f.network, "network", "emulate a network on the load's connections to the node: loopback, lan, region, wan, or settings such as delay=5ms,jitter=100us,bandwidth=8mbit (measured first, and recorded)")
	fl.StringVar(&f.format, "format", "table", "output: table or json")
	fl.StringVar(&f.out, "out", "", "also append the load's record to `DIR`/results.jsonl, for hopbench report and compare")
	f.oneway.add(fl)
	f.metrics.add(fl)
	f.checks.addThresholds(fl)
	f.checks.addJUnit(fl, "the thresholds' checks")
	return cmd
}

func runLoad(cmd *cobra.Command, a *app, f *loadFlags) (err error) {
	if err := f.check(cmd.Flags().Changed); err != nil {
		return usageError{err}
	}
	rules, err := f.rules()
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	if m, err := f.proto.use(ctx); err != nil {
		return err
	} else if m != nil {
		if cmd.Flags().Changed("model") {
			return usageError{errors.New("give --model or --proto, not both: your message is the model")}
		}
		f.target.Model = m.Name
	}
	w, err := load.OpenWindow(ctx, load.WindowConfig{Target: f.target, Network: f.network})
	if err != nil {
		return err
	}
	defer w.Close()
	if err := f.probe(ctx, w); err != nil {
		return err
	}
	emulated, err := measuredNetwork(ctx, f.network)
	if err != nil {
		return err
	}
	exp, err := f.metrics.start(ctx, a)
	if err != nil {
		return err
	}
	defer closeMetrics(ctx, exp, &err)
	measuring, others, err := lease.Measure()
	if err != nil {
		return err
	}
	defer measuring.Release()
	warnShared(a)(others)
	began := time.Now()
	m, err := f.measure(ctx, a, w, exp)
	if err != nil {
		return err
	}
	out := newLoadOutput(f, m, emulated)
	rec, err := loadRecord(f.run(), m, began, ctx.Err() != nil, append(others, lease.Measuring(measuring)...))
	if err != nil {
		return err
	}
	rec.Network = out.Network
	return a.finishLoad(ctx, f, &out, rec, rules)
}

// rules are load's --threshold flags, refused when they hold a figure a
// load does not record.
func (f *loadFlags) rules() (threshold.Rules, error) {
	rules, err := f.checks.rules(nil)
	if err != nil {
		return nil, err
	}
	subject := threshold.Subject{Stack: f.target.Stack.String(), Topology: "direct", Capacity: f.capacity}
	if err := rules.Check([]threshold.Subject{subject}); err != nil {
		return nil, usageError{err}
	}
	return rules, nil
}

// newLoadOutput is what a load measured, as hopbench load prints it.
func newLoadOutput(f *loadFlags, m load.Measured, emulated *network.Measured) loadOutput {
	res := m.Result
	out := loadOutput{Stack: f.target.Stack.String(), Target: f.target.Addr, Op: f.op, Model: f.target.Model, Count: f.target.Count,
		Load: f.cfg.String(), Figures: res.Figures(m.Wire), Network: emulated}
	out.RequestBodyBytes, out.RequestBodyRawBytes, out.ResponseBodyBytes = m.RequestBytes, m.RawRequestBytes, m.ReplyBytes
	if res.Capacity != nil {
		out.Steps = res.Steps
	}
	if out.NoFigures = res.CallsFailed(); out.NoFigures != "" {
		out.Figures.Withhold()
	} else if mark, ok := results.PartlyFailed(&out.Figures, out.Steps); ok {
		out.Flags = results.Marks{mark}
	}
	return out
}

// finishLoad judges the load's thresholds, prints what it measured with
// them, and appends its record where --out says. A load whose calls
// failed is an error before a failed threshold, an interruption before
// both.
func (a *app) finishLoad(ctx context.Context, f *loadFlags, out *loadOutput, rec *results.Record, rules threshold.Rules) error {
	if len(rules) > 0 {
		out.Checks = threshold.Judge(rules, []results.Record{*rec})
	}
	if err := out.write(a.stdout, f.format); err != nil {
		return err
	}
	if f.out != "" {
		if err := os.MkdirAll(f.out, 0o755); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		if err := results.Append(filepath.Join(f.out, experiment.ResultsFile), rec); err != nil {
			return err
		}
		fmt.Fprintf(a.stderr, "record appended to %s (hopbench report %s draws it)\n", filepath.Join(f.out, experiment.ResultsFile), f.out)
	}
	var failed error
	if len(rules) > 0 {
		failed = settle("thresholds", out.Checks, f.checks.junit)
	}
	if out.NoFigures != "" && ctx.Err() == nil {
		return fmt.Errorf("no figures: %s", out.NoFigures)
	}
	return cmp.Or(ctx.Err(), failed) // an interrupted load still printed what it measured
}

// measure drives the load through w, shown on stderr as it goes and
// exported live as one run when exp is set.
func (f *loadFlags) measure(ctx context.Context, a *app, w *load.Window, exp *metrics.Exporter) (load.Measured, error) {
	live := newLiveLine(a.stderr, fmt.Sprintf("%s %s %s×%d %s", f.target.Stack, f.op, f.target.Model, f.target.Count, f.cfg.String()), f.cfg.Duration, f.cfg.Requests)
	f.cfg.Progress = live.second
	exp.Plan(1)
	run := exp.Begin(caseOf(f.run()))
	f.cfg.Live = run.Feed()
	var drive load.Driver
	if f.oneWay != nil {
		drive = oneway.Driver(f.oneWay.Config())
	}
	m, err := w.Measure(ctx, f.cfg, drive, nil)
	run.End()
	live.done()
	return m, err
}

// measuredNetwork is an emulated network as measured before a load; nil
// on loopback.
func measuredNetwork(ctx context.Context, p network.Profile) (*network.Measured, error) {
	if p.IsLoopback() {
		return nil, nil
	}
	m, err := network.Measure(ctx, p)
	if err != nil {
		return nil, err
	}
	return &m, nil
}

// firstCallDeadline bounds the call that checks a node answers before a
// load: a broker stack's request with no service consuming would wait for
// ever.
const firstCallDeadline = 10 * time.Second

// probe checks the node answers a first call before the load; a
// one-way load calls no node (its publishers and consumers are its own).
func (f *loadFlags) probe(ctx context.Context, w *load.Window) error {
	if f.oneWay != nil {
		return nil
	}
	if err := probe(ctx, w.Target(), min(f.cfg.Timeout, firstCallDeadline)); err != nil {
		return fmt.Errorf("the node at %s did not answer a first %s call (%s): %w (is `hopbench node --stack %s` running there, and for a broker stack, consuming?)",
			f.target.Addr, f.op, load.Classify(err), err, f.stack)
	}
	return nil
}

func probe(ctx context.Context, tgt *load.Target, within time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	return tgt.Probe(ctx)
}

func (f *loadFlags) check(changed func(string) bool) error {
	var err error
	if f.target.Stack, err = transport.ParseStack(f.stack); err != nil {
		return err
	}
	if f.target.Op, f.target.Messages, err = transport.ParseOpArg(f.op); err != nil {
		return err
	}
	if f.target.Op == transport.OpFeed {
		if err := transport.FeedRefusal(f.target.Stack.Transport); err != nil {
			return err
		}
	}
	if f.target.Addr == "" {
		f.target.Addr = defaultAddr(f.target.Stack, f.tlsDir != "" || f.caFile != "", f.mtls)
	}
	f.target.Transport.Options = f.options
	switch {
	case f.capacity && (f.cfg.Clients > 0 || f.cfg.Rate > 0):
		return errors.New("--capacity searches the rate itself: leave out --clients and --rate")
	case f.capacity:
		f.cfg.Kind = load.Capacity
		if !changed("duration") {
			f.cfg.Duration = load.DefaultBudget
		}
		if !changed("workers") {
			f.cfg.Workers = 0 // sized per probe
		}
		if !changed("sla") {
			return errors.New("--capacity needs --sla, the latency the percentile must stay within (e.g. --sla 10ms)")
		}
	case f.cfg.Clients > 0 && f.cfg.Rate > 0:
		return errors.New("give --clients (closed loop) or --rate (open loop), not both")
	case f.cfg.Clients > 0:
		f.cfg.Kind = load.Closed
	case f.cfg.Rate > 0:
		f.cfg.Kind = load.Rate
	default:
		return errors.New("give --clients N for a closed loop, --rate R for an open loop or --capacity --sla D for a capacity search")
	}
	if f.format != "table" && f.format != "json" {
		return fmt.Errorf("--format %q: want table or json", f.format)
	}
	if f.oneWay, err = f.oneway.spec(changed, &f.target, f.cfg); err != nil {
		return err
	}
	if err := f.metrics.check(); err != nil {
		return err
	}
	if err := f.cfg.Validate(); err != nil {
		return err
	}
	tcfg, err := clientTLS(f.tlsDir, f.caFile, f.mtls)
	f.target.Transport.ClientTLS = tcfg
	return err
}

// clientTLS is the client side of a node's TLS: its shared directory, or
// just its CA certificate.
func clientTLS(dir, caFile string, mutual bool) (*tls.Config, error) {
	switch {
	case dir != "" && caFile != "":
		return nil, errors.New("give --tls-dir or --ca, not both")
	case dir != "":
		b, err := certs.Load(dir)
		if err != nil {
			return nil, fmt.Errorf("--tls-dir: %w", err)
		}
		return b.Client(mutual), nil
	case mutual:
		return nil, errors.New("--mtls needs --tls-dir, where the client certificate is")
	case caFile != "":
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("--ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--ca %s: no PEM certificate in it", caFile)
		}
		return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
	}
	return nil, nil
}

// loadRecord is what hopbench load measured as a record, as hopbench run
// writes them (load.Measured.Record, judged by load.Result.Judge), so that
// report and compare read it (vegeta's attack | report) and thresholds
// judge it as they judge a run's.
func loadRecord(run experiment.Run, m load.Measured, began time.Time, interrupted bool, others []lease.Holder) (*results.Record, error) {
	rec := run.Record()
	rec.Experiment, rec.Environment = "load", environment.Describe()
	rec.Started, rec.Ended = began, time.Now()
	if err := m.Record(rec); err != nil {
		return nil, err
	}
	if interrupted {
		rec.Outcome, rec.Reason = results.OutcomeInterrupted, "stopped before the end of the load; figures are partial"
	} else {
		rec.Outcome, rec.Reason = m.Result.Judge(rec)
	}
	rec.MarkFailures()
	for _, h := range others {
		if s := h.String(); !slices.Contains(rec.OthersMeasuring, s) {
			rec.OthersMeasuring = append(rec.OthersMeasuring, s)
		}
	}
	rec.MarkNoise()
	return rec, nil
}

// run is the load as an experiment's run would describe it, so that its
// record names its case and configuration as hopbench run's records do
// (two loads that differ only in --tls are two cases, not repetitions).
func (f *loadFlags) run() experiment.Run {
	r := experiment.Run{Stack: f.target.Stack.String(), Topology: "direct", Op: f.op, Model: f.target.Model, Count: f.target.Count,
		Load: load.ModelOf(f.cfg), Duration: experiment.Duration(f.cfg.Duration), Requests: f.cfg.Requests,
		Warmup: experiment.Duration(f.cfg.Warmup), SLA: experiment.Duration(f.cfg.SLA), Timeout: experiment.Duration(f.cfg.Timeout),
		TLS: f.tlsDir != "" || f.caFile != "", MTLS: f.mtls, HTTP2: f.target.Transport.HTTP2,
		Connections: f.target.Connections, PerRequest: f.target.PerRequest, Seed: f.target.Seed, TransportOptions: f.options,
		Network: f.network, OneWay: f.oneWay}
	if f.cfg.Limits != (load.Limits{}) {
		r.Limits = &f.cfg.Limits
	}
	return r
}

// loadOutput is what hopbench load prints: the call and its figures, with
// the same keys as a result record.
type loadOutput struct {
	Stack  string `json:"stack"`
	Target string `json:"target"`
	Op     string `json:"op"`
	Model  string `json:"model"`
	Count  int    `json:"count"`
	Load   string `json:"load"`
	results.Figures
	// NoFigures says why the load has no latency or throughput figure
	// (its calls failed); empty when it has them.
	NoFigures string `json:"no_figures,omitempty"`
	// Flags mark figures that stand for less than a clean measurement,
	// as the record's do.
	Flags results.Marks `json:"flags,omitempty"`
	// Steps are a capacity search's probes: its curve.
	Steps []results.Step `json:"steps,omitempty"`
	// Network is the emulated network as measured before the load.
	Network *network.Measured `json:"network,omitempty"`
	// Checks are its thresholds (--threshold) as judged.
	Checks []check.Check `json:"checks,omitempty"`
}

// write prints the load as format says: a table of its figures and then
// its checks, or all in JSON.
func (o *loadOutput) write(w io.Writer, format string) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(o)
	}
	if err := o.writeTable(w); err != nil || len(o.Checks) == 0 {
		return err
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	return check.Table(w, "thresholds", o.Checks)
}

func (o *loadOutput) writeTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, v string, args ...any) { fmt.Fprintf(tw, "%s\t"+v+"\n", append([]any{k}, args...)...) }
	row("stack", "%s at %s", o.Stack, o.Target)
	row("call", "%s %s×%d, %d B request body", o.Op, o.Model, o.Count, o.RequestBodyBytes)
	row("load", "%s", o.Load)
	if o.Network != nil {
		row("network", "%s", o.Network)
	}
	switch {
	case o.NoFigures != "":
		row("requests", "%d in %.2fs", o.Requests, o.ElapsedS)
	case o.Capacity != nil:
		row("requests", "%d in %.2fs over %d probes; %.0f req/s achieved at the capacity", o.Requests, o.ElapsedS, len(o.Steps), o.RPS)
	default:
		row("requests", "%d in %.2fs: %.0f req/s", o.Requests, o.ElapsedS, o.RPS)
	}
	row("errors", "%d%s", o.Errors, classes(o.ErrorsByClass))
	if o.NotSent > 0 {
		row("not sent", "%d requests due in the window (the generator fell that far behind the rate)", o.NotSent)
	}
	if o.NoFigures != "" {
		row("figures", "none: %s", o.NoFigures)
		return tw.Flush()
	}
	for _, m := range o.Flags {
		row("flag", "%s: %s", m.Flag, m.Why)
		if m.Flag.Withholds() {
			row("", "no ranking uses these figures")
		}
	}
	if o.OneWay != nil {
		oneWayRows(row, o.OneWay)
		row("end to end", "p50 %s  p90 %s  p99 %s  p99.9 %s  max %s  (publish due to consumed)", us(o.P50Us), us(o.P90Us), us(o.P99Us), us(o.P999Us), us(o.MaxUs))
	} else {
		row("latency", "p50 %s  p90 %s  p99 %s  p99.9 %s  max %s", us(o.P50Us), us(o.P90Us), us(o.P99Us), us(o.P999Us), us(o.MaxUs))
	}
	if u := o.Uncorrected; u != nil {
		row("uncorrected", "p50 %s  p90 %s  p99 %s  p99.9 %s  max %s  (from actual send; what most tools report)", us(u.P50Us), us(u.P90Us), us(u.P99Us), us(u.P999Us), us(u.MaxUs))
	}
	if fm := o.FirstMessage; fm != nil {
		row("first message", "p50 %s  p99 %s  (a feed's, from the intended send like the latency, which runs to its last message)", us(fm.P50Us), us(fm.P99Us))
	}
	if o.MessagesPerS > 0 {
		row("messages", "%.0f messages/s", o.MessagesPerS)
	}
	if l := o.Lateness; l != nil {
		row("lateness", "p50 %s  p99 %s  max %s  (the generator's own, past each due time; not in the latency)", us(l.P50Us), us(l.P99Us), us(l.MaxUs))
	}
	if o.Wire != nil {
		row("wire", "%.0f B sent, %.0f B received per request", o.Wire.Sent, o.Wire.Received)
	}
	row("generator", "%.1f µs CPU per request", o.ClientCPUUsPerReq)
	if c := o.Capacity; c != nil {
		row("capacity", "%s", c.Describe())
		for _, st := range o.Steps {
			verdict := st.Probe
			if st.Retry {
				verdict += " (probed again)"
			}
			if st.Transient != "" {
				verdict += "; transient, passed when probed again: " + st.Transient
			}
			row("  probe", "%8.0f req/s: achieved %.0f, p%s %s, %d errors%s: %s", st.Value, st.RPS, pct(c.Percentile), us(st.PercentileUs), st.Errors, classes(st.ErrorsByClass), verdict)
		}
	}
	return tw.Flush()
}

func pct(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

func classes(m map[string]int64) string {
	var parts []string
	for _, c := range load.ClassNames() {
		if m[c] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", c, m[c]))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func us(v int64) string {
	if v >= 10_000 {
		return fmt.Sprintf("%.1fms", float64(v)/1000)
	}
	return fmt.Sprintf("%dµs", v)
}
