package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hopbench/hopbench/internal/agent"
	"github.com/hopbench/hopbench/internal/broker"
	"github.com/hopbench/hopbench/internal/calibrate"
	"github.com/hopbench/hopbench/internal/codecbench"
	"github.com/hopbench/hopbench/internal/experiment"
	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/lease"
	"github.com/hopbench/hopbench/internal/report"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/threshold"
	"github.com/hopbench/hopbench/presets"
)

type runFlags struct {
	out, scale               string
	noCalibrate, yes, dryRun bool
	tlsDir, tokenFile        string
	metrics                  metricsFlags
	checks                   checkFlags
}

func newRunCommand(a *app) *cobra.Command {
	f := runFlags{}
	cmd := &cobra.Command{
		Use:         "run [SPEC | PRESET]",
		Annotations: generatesLoad,
		Short:       "Run an experiment: every run of a spec's matrix, recorded and summarized",
		Long: `Run an experiment described by a YAML spec (a file, or the name of a preset:
` + strings.Join(presets.Names(), ", ") + `). Without one, runs the quick preset:
every stack, direct and chain:5, latency at 1 client and throughput at 32.

For each run hopbench starts the topology's nodes as child processes, times
their boot, warms up, measures, reads the nodes' own figures and /proc, and
stops them. Each run's record is appended to DIR/results.jsonl as it ends;
DIR/summary.md, summary.csv and the report (report.html, report.md,
charts/) are written at the end, also when interrupted.

Thresholds (the spec's thresholds:, and --threshold for every case) are
judged at the end on each case's median over its runs with its 95%
interval: each listed with its figure, kept in DIR/thresholds.json, and
with --junit written as JUnit XML. One failed makes hopbench run exit 3;
one the interval cannot decide reads undecided and does not fail.

A spec that needs the JVM node (runtimes: [jvm]) builds it on first use in
a hopbench checkout (scripts/setup.sh jvm), as brokers are started. With
--dry-run, hopbench run checks the spec and prints its cases, runs and
estimated time, and starts nothing.`,
		Example: `  hopbench run
  hopbench run presets/quick.yaml --out results/mine
  hopbench run ensor --scale quick
  hopbench run --dry-run thesis
  hopbench run my-experiment.yaml
  hopbench run gated.yaml --junit thresholds.xml`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := "quick"
			if len(args) == 1 {
				name = args[0]
			}
			spec, data, err := loadSpec(name, f.scale)
			if err != nil {
				return err
			}
			if f.dryRun {
				return dryRun(a.stdout, spec, f)
			}
			if err := f.metrics.check(); err != nil {
				return usageError{err}
			}
			_, err = runExperiment(cmd, a, spec, data, f)
			return err
		},
	}
	cmd.Flags().StringVar(&f.out, "out", "", "results directory (default results/<name>-<timestamp>)")
	cmd.Flags().StringVar(&f.scale, "scale", "", "run the spec at one of its scales, e.g. quick (default: as written, the study's own scale)")
	cmd.Flags().BoolVar(&f.noCalibrate, "no-calibrate", false, "skip measuring the machine's floor before the runs")
	cmd.Flags().BoolVar(&f.dryRun, "dry-run", false, "check the spec, print its cases, runs and estimated time, and start nothing")
	cmd.Flags().BoolVar(&f.yes, "yes", false, "run an experiment estimated to take more than an hour (or set max_duration: in the spec)")
	cmd.Flags().StringVar(&f.tlsDir, "tls-dir", "", "a spec with hosts: the certificate bundle `DIR` its agents take (hopbench hosts certs); default: hopbench hosts up's")
	cmd.Flags().StringVar(&f.tokenFile, "token-file", "", "a spec with hosts: a `FILE` holding the token its agents take")
	f.metrics.add(cmd.Flags())
	f.checks.addThresholds(cmd.Flags())
	f.checks.addJUnit(cmd.Flags(), "the thresholds' checks")
	return cmd
}

// loadSpec reads a spec file, or failing that a preset of that name. A
// spec that does not parse is a usage error: the user's input is wrong.
func loadSpec(name, scale string) (*experiment.Spec, []byte, error) {
	if st, err := os.Stat(name); err == nil && st.IsDir() {
		return nil, nil, usageError{fmt.Errorf("%s is a directory: give a spec file (YAML) in it, or a preset's name (presets: %s)", name, strings.Join(presets.Names(), ", "))}
	}
	data, err := os.ReadFile(name)
	if err != nil {
		var ok bool
		if data, ok = presets.Read(filepath.Base(name)); !ok {
			return nil, nil, usageError{fmt.Errorf("%s: no such spec file or preset (presets: %s)", name, strings.Join(presets.Names(), ", "))}
		}
	}
	s, err := experiment.ParseNamed(data, name, scale)
	if err != nil {
		return nil, nil, usageError{err}
	}
	return s, data, nil
}

// newResultsDir makes base, or base-2, base-3, ... if another run made it
// first (two runs started in the same second), exclusively: no two runs
// ever write into one directory.
func newResultsDir(base string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return "", err
	}
	for i := 1; i <= 100; i++ {
		dir := base
		if i > 1 {
			dir = fmt.Sprintf("%s-%d", base, i)
		}
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("%s and 99 more like it exist already: give --out", base)
}

// longRun is the estimate above which hopbench run asks for --yes.
const longRun = time.Hour

// checkLength refuses an experiment longer than the spec's max_duration,
// or, without one, longer than an hour unless the user said yes.
func checkLength(spec *experiment.Spec, estimate time.Duration, yes bool) error {
	basis := "by its runs' warm-ups and durations"
	if len(spec.Codecs) > 0 {
		basis += " and the timing of its codecs"
	}
	switch max := time.Duration(spec.MaxDuration); {
	case max > 0 && estimate > max:
		return fmt.Errorf("this experiment takes about %s %s, more than its max_duration of %s: shorten it (fewer cases, shorter durations, --scale quick) or raise max_duration", roughly(estimate), basis, max)
	case max == 0 && estimate > longRun && !yes:
		return fmt.Errorf("this experiment takes about %s %s: run it with --yes, or set max_duration: in the spec", roughly(estimate), basis)
	}
	return nil
}

// estimateOf is about how long spec's runs take, with the timing of its
// codecs before them.
func estimateOf(spec *experiment.Spec, runs []experiment.Run) time.Duration {
	return experiment.Estimate(runs) + spec.CodecEstimate(runs)
}

// needsJVM says whether an experiment starts JVM nodes or times codecs
// on the JVM: what the JVM node's build serves.
func needsJVM(spec *experiment.Spec, runs []experiment.Run) bool {
	return slices.ContainsFunc(runs, experiment.Run.OnJVM) || len(spec.Codecs) > 0 && slices.Contains(spec.Runtimes, jvm.JVM)
}

// agentAuth is how the run authenticates to its hosts' agents: as its
// flags say, or by default as hopbench hosts up's certificates (the zero
// Auth).
func agentAuth(spec *experiment.Spec, f runFlags) (agent.Auth, error) {
	if f.tlsDir == "" && f.tokenFile == "" {
		return agent.Auth{}, nil
	}
	if len(spec.Hosts) == 0 {
		return agent.Auth{}, usageError{errors.New("--tls-dir and --token-file authenticate to the agents of a spec's hosts, and this spec has none")}
	}
	auth, err := agent.LoadAuth(f.tlsDir, f.tokenFile)
	if err != nil {
		return auth, usageError{err}
	}
	return auth, nil
}

// roughly reads a duration to the minute (or second, under two minutes).
func roughly(d time.Duration) string {
	if d < 2*time.Minute {
		return d.Round(time.Second).String()
	}
	return d.Round(time.Minute).String()
}

// roundLine says what a round beyond the spec's min is for, or why the
// rounds stopped.
func roundLine(r experiment.Round) string {
	var open []string
	for _, o := range r.Open {
		open = append(open, fmt.Sprintf("%s (%s vs %s)", o.Scenario, o.Pair[0], o.Pair[1]))
	}
	if r.Stopped != "" {
		line := fmt.Sprintf("rounds stopped after %d: %s", r.Number, r.Stopped)
		if len(open) > 0 {
			line += "; still undecided: " + strings.Join(open, "; ")
		}
		return line
	}
	return fmt.Sprintf("round %d: %d runs, about %s, for what is still undecided: %s", r.Number+1, r.Runs, r.Estimate.Round(time.Second), strings.Join(open, "; "))
}

// runExperiment runs spec (data is its YAML, kept beside the results) and
// returns its records.
func runExperiment(cmd *cobra.Command, a *app, spec *experiment.Spec, data []byte, f runFlags) ([]results.Record, error) {
	runs := spec.Runs()
	estimate := estimateOf(spec, runs)
	if err := checkLength(spec, estimate, f.yes); err != nil {
		return nil, usageError{err}
	}
	rules, err := thresholdRules(spec, runs, f.checks)
	if err != nil {
		return nil, err
	}
	auth, err := agentAuth(spec, f)
	if err != nil {
		return nil, err
	}
	if needsJVM(spec, runs) {
		if _, err := jvm.Ensure(cmd.Context(), a.stderr); err != nil {
			return nil, fmt.Errorf("runtime jvm: %w", err)
		}
	}
	bin, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding the hopbench binary for the nodes: %w", err)
	}
	dir, err := resultsDir(spec, f.out)
	if err != nil {
		return nil, err
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, "spec.yaml"), func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		return nil, err
	}
	nodeLog, err := os.Create(filepath.Join(dir, "nodes.log"))
	if err != nil {
		return nil, err
	}
	defer nodeLog.Close()
	ctx := cmd.Context()
	fmt.Fprintf(a.stderr, "hopbench run: %s, %d runs, about %s, results in %s\n", spec.Name, len(runs), roughly(estimate), dir)
	x := &experiment.Runner{Bin: bin, Dir: dir, NodeStderr: nodeLog, Env: []string{fmt.Sprintf("HOPBENCH_PARENT=%d", os.Getpid())}, AgentAuth: auth}
	if !f.noCalibrate {
		if x.Calibration, err = calibrate.Measure(ctx, 2000); err != nil {
			return nil, err
		}
		c := x.Calibration
		fmt.Fprintf(a.stderr, "floor: TCP round trip %.1fµs, HTTP %.1fµs, generator %.2fµs CPU per request\n",
			c.TCPRoundTripUs, c.HTTPRoundTripUs, c.GeneratorCPUUsPerReq)
	}
	a.reportProgress(x)
	exp, err := f.metrics.start(ctx, a)
	if err != nil {
		return nil, err
	}
	exportRuns(x, exp)
	recs, err := x.Run(ctx, spec)
	err = cmp.Or(err, exp.Close(ctx))
	fmt.Fprintln(a.stderr)
	if !f.noCalibrate && ctx.Err() == nil && len(recs) > 0 {
		err = cmp.Or(err, noiseAfter(ctx, a, dir, x.Calibration))
	}
	if len(recs) > 0 {
		err = cmp.Or(err, a.summarize(dir, spec.Name, recs, rules, f.checks.junit))
	}
	return recs, err
}

// summarize shows what an experiment measured and keeps its summaries,
// report and judged thresholds in dir, whatever ended the experiment:
// what was measured is shown, and one that fails never hides the
// experiment's own error, which the caller keeps before this one's.
func (a *app) summarize(dir, name string, recs []results.Record, rules threshold.Rules, junit string) error {
	results.Markdown(a.stdout, results.Summarize(recs))
	fmt.Fprintf(a.stdout, "\n%d runs recorded in %s\n", len(recs), filepath.Join(dir, experiment.ResultsFile))
	err := a.report(dir, name, recs)
	checks, failed := a.judge(rules, recs, junit)
	if len(checks) > 0 {
		err = cmp.Or(err, writeChecks(dir, checks))
	}
	return cmp.Or(err, failed)
}

// thresholdRules are the spec's thresholds and --threshold's, refused
// before anything runs when one selects no case or a figure the cases it
// selects do not record.
func thresholdRules(spec *experiment.Spec, runs []experiment.Run, f checkFlags) (threshold.Rules, error) {
	rules, err := f.rules(spec.Thresholds)
	if err != nil {
		return nil, err
	}
	if err := rules.Check(runSubjects(runs)); err != nil {
		return nil, usageError{err}
	}
	return rules, nil
}

// noiseAfter measures the machine's noise again after the runs and keeps
// it beside the results, for the report to set against the noise before.
func noiseAfter(ctx context.Context, a *app, dir string, before *results.Calibration) error {
	n, err := calibrate.Noise(ctx, 2000)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "noise: a fixed workload's median moved %.0f %% across 5 batches before the runs, %.0f %% after\n", 100*before.NoiseSpread, 100*n)
	return results.WriteFileAtomic(filepath.Join(dir, results.NoiseAfterFile), func(w io.Writer) error {
		return json.NewEncoder(w).Encode(map[string]float64{"noise_spread": n})
	})
}

// resultsDir makes the directory an experiment's results go in: out, or
// by default results/<name>[-<scale>]-<timestamp>, a new one.
func resultsDir(spec *experiment.Spec, out string) (string, error) {
	if out != "" {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return "", fmt.Errorf("--out: %w", err)
		}
		return out, nil
	}
	name := spec.Name
	if spec.Scale() != "" {
		name += "-" + spec.Scale()
	}
	return newResultsDir(filepath.Join("results", name+"-"+time.Now().Format("20060102-150405")))
}

// reportProgress has x tell the terminal of each run, codec timing and
// broker as the experiment goes.
func (a *app) reportProgress(x *experiment.Runner) {
	x.OnRun, x.OnSecond, x.OnRecord = runReporter(a)
	x.OnRound = func(r experiment.Round) { fmt.Fprintln(a.stderr, roundLine(r)) }
	x.OnCodec = func(i, n int, r codecbench.Result) {
		where := ""
		if r.Runtime != "" {
			where = " on the " + strings.ToUpper(r.Runtime) + " (JMH)"
		}
		fmt.Fprintf(a.stderr, "[codec %d/%d] %s×%d %s+%s%s: %d B, marshal %s, unmarshal %s\n", i+1, n, r.Model, r.Count, r.Codec, r.Compress, where,
			r.CompressedBytes, codecbench.HumanNs(r.Marshal.MedianNs), codecbench.HumanNs(r.Unmarshal.MedianNs))
	}
	x.Brokers.Notify = func(msg string) { fmt.Fprintln(a.stderr, "  "+msg) }
	x.OnShared = warnShared(a)
	x.OnBroker = func(b *broker.Broker) {
		if b.Started {
			fmt.Fprintf(a.stderr, "  %s %s started at %s (pid %d; log %s); stopped when the experiment ends\n", b.Name, b.Version, b.Addr, b.PID, b.Log)
		} else {
			fmt.Fprintf(a.stderr, "  %s %s already running at %s: used as is\n", b.Name, b.Version, b.Addr)
		}
	}
}

// report writes an experiment's summaries and report into dir, and ends
// the terminal's output with what the run says and where the report is.
func (a *app) report(dir, name string, recs []results.Record) error {
	r, err := writeReport(dir, name, []string{dir}, recs)
	if err != nil {
		fmt.Fprintf(a.stderr, "hopbench run: writing the summaries and report: %v (hopbench report %s retries)\n", err, dir)
		return err
	}
	fmt.Fprintln(a.stdout)
	err = r.Verdict.Text(a.stdout)
	fmt.Fprintf(a.stdout, "\nreport: %s\n", filepath.Join(dir, report.HTMLFile))
	return err
}

// warnShared warns, once for each, of other hopbench processes measuring
// on this machine: they share its CPUs, so both runs' figures suffer.
func warnShared(a *app) func([]lease.Holder) {
	warned := map[int]bool{}
	return func(others []lease.Holder) {
		for _, h := range others {
			if !warned[h.PID] {
				warned[h.PID] = true
				fmt.Fprintf(a.stderr, "\nwarning: another hopbench process is measuring on this machine: %s; both share its CPUs, so both runs' figures suffer (records list it under others_measuring)\n", h)
			}
		}
	}
}

// timeLeft guesses the experiment's remaining time from the runs so far:
// their mean time times the runs still to make (", ~12m left"); nothing
// before the first run has ended.
func timeLeft(done, total int, spent time.Duration) string {
	if done == 0 {
		return ""
	}
	left := (spent / time.Duration(done) * time.Duration(total-done)).Round(time.Minute)
	switch {
	case left < time.Minute:
		return ", <1m left"
	case left < time.Hour:
		return fmt.Sprintf(", ~%dm left", int(left.Minutes()))
	}
	return fmt.Sprintf(", ~%dh%02dm left", int(left.Hours()), int(left.Minutes())%60)
}

// runReporter shows each run as it starts, a live line while it measures,
// and its outcome when it ends.
func runReporter(a *app) (func(int, int, experiment.Run), func(experiment.Run, results.Second), func(*results.Record)) {
	var live *liveLine
	var began time.Time
	onRun := func(i, n int, r experiment.Run) {
		if i == 0 {
			began = time.Now()
		}
		live = newLiveLine(a.stderr, fmt.Sprintf("[%d/%d%s] %s", i+1, n, timeLeft(i, n, time.Since(began)), r.Case()), time.Duration(r.Duration), r.Requests)
		if !live.tty {
			fmt.Fprintln(a.stderr, live.label)
		}
	}
	onSecond := func(_ experiment.Run, s results.Second) { live.second(s) }
	onRecord := func(rec *results.Record) {
		live.done()
		line := fmt.Sprintf("%s: %.0f req/s, p50 %s, p99 %s, %d errors", rec.Outcome, rec.RPS, us(rec.P50Us), us(rec.P99Us), rec.Errors)
		if rec.Outcome == results.OutcomeCallsFailed || rec.Requests == 0 {
			line = rec.Outcome // no figure stands: "failed: 0 req/s, p50 0µs" read as one
		}
		if c := rec.Capacity; c != nil {
			line = fmt.Sprintf("%s: capacity %s; there p50 %s, p99 %s; %d probes, %d calls late or failed",
				rec.Outcome, c.Describe(), us(rec.P50Us), us(rec.P99Us), len(rec.Steps), rec.Errors)
		}
		if rec.Reason != "" {
			line += " (" + rec.Reason + ")"
		}
		if len(rec.Flags) > 0 {
			line += "; flagged " + rec.Flags.String()
		}
		if live.tty {
			fmt.Fprintf(a.stderr, "%s  %s\n", live.label, line)
		} else {
			fmt.Fprintf(a.stderr, "  %s\n", line)
		}
	}
	return onRun, onSecond, onRecord
}
