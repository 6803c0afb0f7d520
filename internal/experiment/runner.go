package experiment

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/hopbench/hopbench/internal/agent"
	"github.com/hopbench/hopbench/internal/broker"
	"github.com/hopbench/hopbench/internal/codecbench"
	"github.com/hopbench/hopbench/internal/environment"
	"github.com/hopbench/hopbench/internal/lease"
	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/trial"
)

// Runner makes an experiment's runs one after another: for each, it starts
// the topology's nodes as child processes, measures, records and tears down.
type Runner struct {
	// Bin is the hopbench binary the nodes are started from.
	Bin string
	// Dir receives results.jsonl (one record per run, appended as each
	// ends) and the summaries.
	Dir string
	// NodeStderr receives the nodes' own output (default: discarded).
	NodeStderr io.Writer
	// Env is added to every node's environment.
	Env []string
	// Calibration, if measured, is stored with every record.
	Calibration *results.Calibration
	// OnRun is called as each run starts; OnSecond as each measured second
	// completes; OnRecord as each record is written.
	OnRun    func(i, n int, r Run)
	OnSecond func(r Run, s results.Second)
	OnRecord func(rec *results.Record)
	// OnTick, if set, receives each measured second's live figures as it
	// closes, from a generator in this process (live metrics).
	OnTick func(r Run, t load.Tick)
	// OnRound is called before each round beyond the spec's min, with
	// repetitions until decided, and once more when the rounds stop.
	OnRound func(r Round)
	// Brokers says where the brokers of broker stacks keep their data and
	// how NATS is run (Bin defaults to the Runner's); BrokerAddrs overrides
	// a broker's address by name (default broker.DefaultAddr).
	Brokers     broker.Config
	BrokerAddrs map[string]string
	// OnBroker is called when the experiment starts a broker.
	OnBroker func(b *broker.Broker)
	// OnCodec is called as each codec timing of the spec's codecs ends.
	OnCodec func(i, n int, r codecbench.Result)
	// OnShared, if set, hears of other hopbench processes measuring on
	// this machine as the experiment starts and as each run ends.
	OnShared func(others []lease.Holder)
	// AgentAuth is how the coordinator authenticates to the agents of a
	// spec's hosts (default: the certificates of hopbench hosts up).
	AgentAuth agent.Auth
	// resetNode replaces the POST /reset that opens a node's measured
	// window (tests make it fail).
	resetNode func(ctx context.Context, adminAddr string) error
	// measure replaces the making of each run (tests measure nothing).
	measure func(ctx context.Context, r Run, rec *results.Record) error
}

// rig is what the runs of s share, each made by package trial.
func (x *Runner) rig(ctx context.Context, s *Spec, cases []trial.Case) (*trial.Rig, error) {
	hosts := make([]trial.Host, len(s.Hosts))
	for i, h := range s.Hosts {
		hosts[i] = trial.Host{Name: h.Name, Agent: h.Agent}
	}
	return trial.NewRig(ctx, trial.RigConfig{Bin: x.Bin, Dir: x.Dir, NodeStderr: x.NodeStderr, Env: x.Env, Pin: s.Pin, MTLS: s.MTLS,
		Brokers: x.Brokers, BrokerAddrs: x.BrokerAddrs, OnBroker: x.OnBroker, Hosts: hosts, AgentAuth: x.AgentAuth,
		ResetNode: x.resetNode}, cases)
}

// ResultsFile is the name of the records file in a results directory.
const ResultsFile = "results.jsonl"

// Run makes every run of s. Each record is appended to Dir/results.jsonl
// as its run ends, so an interrupted experiment keeps every finished run;
// the interrupted run itself is recorded with outcome interrupted. It
// returns the records and, when ctx ended early, ctx's error. What is read
// from the records (summaries, report) is its caller's to write.
func (x *Runner) Run(ctx context.Context, s *Spec) ([]results.Record, error) {
	if err := os.MkdirAll(x.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("results directory: %w", err)
	}
	runs := s.Runs()
	cases, err := Cases(runs)
	if err != nil {
		return nil, err
	}
	measuring, others, err := lease.Measure()
	if err != nil {
		return nil, err
	}
	defer measuring.Release()
	if len(others) > 0 && x.OnShared != nil {
		x.OnShared(others)
	}
	rig, err := x.rig(ctx, s, cases)
	if err != nil {
		return nil, err
	}
	defer rig.Close(ctx)
	if len(s.Codecs) > 0 {
		if err := s.codecPlan(runs).Time(ctx, x.Bin, x.Dir, x.OnCodec); err != nil {
			return nil, err
		}
	}
	e := &execution{Runner: x, spec: s, rig: rig, measuring: measuring, env: environment.Describe()}
	if err := e.runAll(ctx, runs, cases); err != nil {
		return e.recs, err
	}
	if ctx.Err() == nil {
		if err := e.rounds(ctx, runs); err != nil {
			return e.recs, err
		}
	}
	return e.recs, ctx.Err()
}

// runAll makes runs in order, appending each record as its run ends.
func (e *execution) runAll(ctx context.Context, runs []Run, cases []trial.Case) error {
	for i, r := range runs {
		if ctx.Err() != nil {
			return nil
		}
		if e.OnRun != nil {
			e.OnRun(i, len(runs), r)
		}
		rec := e.run(ctx, r, &cases[i])
		if err := results.Append(filepath.Join(e.Dir, ResultsFile), rec); err != nil {
			return err
		}
		e.recs = append(e.recs, *rec)
		if e.OnRecord != nil {
			e.OnRecord(rec)
		}
	}
	return nil
}

// execution is one experiment in progress.
type execution struct {
	*Runner
	spec *Spec
	rig  *trial.Rig
	env  environment.Environment
	// measuring is the experiment's lease as a hopbench process measuring
	// on this machine, by which others see it and it sees them.
	measuring *lease.Lease
	recs      []results.Record // made so far
}

// run makes run r, its case c, and returns its record: what trial
// measured, with the experiment's and the machine's context.
func (e *execution) run(ctx context.Context, r Run, c *trial.Case) *results.Record {
	rec := r.Record()
	rec.Experiment, rec.Study, rec.Scale = e.spec.Name, e.spec.Study, e.spec.scale
	rec.Environment, rec.Pinning, rec.Calibration = e.env, e.rig.Pinning(), e.Calibration
	others := lease.Measuring(e.measuring)
	var hooks trial.Hooks
	if e.OnSecond != nil {
		hooks.OnSecond = func(s results.Second) { e.OnSecond(r, s) }
	}
	if e.OnTick != nil {
		hooks.OnTick = func(t load.Tick) { e.OnTick(r, t) }
	}
	makeRun := func() error { return e.rig.Make(ctx, c, rec, hooks) }
	if e.measure != nil {
		makeRun = func() error { return e.measure(ctx, r, rec) }
	}
	if err := makeRun(); err != nil {
		rec.Outcome, rec.Reason = results.OutcomeFailed, err.Error()
		if ctx.Err() != nil {
			rec.Outcome = results.OutcomeInterrupted
		}
	}
	rec.Ended = time.Now()
	others = append(others, lease.Measuring(e.measuring)...)
	for _, h := range others {
		if s := h.String(); !slices.Contains(rec.OthersMeasuring, s) {
			rec.OthersMeasuring = append(rec.OthersMeasuring, s)
		}
	}
	if len(others) > 0 && e.OnShared != nil {
		e.OnShared(others)
	}
	rec.MarkNoise()
	return rec
}
