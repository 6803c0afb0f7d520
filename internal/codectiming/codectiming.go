// Package codectiming times an experiment's codecs before its runs, on
// every payload the runs use: in Go in processes of their own
// (codecbench), and under JMH when nodes run on the JVM. The timings are
// written to File beside the run records.
package codectiming

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/hopbench/hopbench/internal/codecbench"
	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/specyaml"
)

// File is the name of the codec timings file in a results directory.
const File = "codec.json"

// Processes is how many processes of their own time an experiment's
// codecs in Go: each one independent run.
const Processes = 5

// JMH is how JMH times the JVM's codecs in an experiment, as a spec
// writes it; what it leaves out is jvm.ExperimentCodecOptions'.
type JMH struct {
	Forks            *int               `yaml:"forks" json:"forks,omitempty" jsonschema_description:"JMH forks (fresh JVMs) a benchmark, each one independent run: 1 to 10 (default 5)."`
	WarmupIterations *int               `yaml:"warmup_iterations" json:"warmup_iterations,omitempty" jsonschema_description:"Warm-up iterations a fork, discarded: 0 to 100 (default 3)."`
	Iterations       *int               `yaml:"iterations" json:"iterations,omitempty" jsonschema_description:"Measured iterations a fork: 1 to 100 (default 3)."`
	IterationTime    *specyaml.Duration `yaml:"iteration_time" json:"iteration_time,omitempty" jsonschema_description:"Time of each warm-up and measured iteration: 100ms to 1m (default 1s)."`
}

// Options are how JMH times the codecs with seed: j's settings, defaults
// for what it leaves out (all of them when j is nil).
func (j *JMH) Options(seed uint64) jvm.CodecOptions {
	o := jvm.ExperimentCodecOptions()
	o.Seed = seed
	if j == nil {
		return o
	}
	set := func(to *int, from *int) {
		if from != nil {
			*to = *from
		}
	}
	set(&o.Forks, j.Forks)
	set(&o.WarmupIterations, j.WarmupIterations)
	set(&o.Iterations, j.Iterations)
	if j.IterationTime != nil {
		o.Iteration = time.Duration(*j.IterationTime)
	}
	return o
}

// Plan is what an experiment times: its codecs on its runs' payloads, and
// on the JVM too when JVM is set.
type Plan struct {
	Codecs   []string
	Payloads []codecbench.Case // one per run; repeats are timed once
	Seed     uint64
	JVM      bool
	JMH      *JMH
}

// Cases are the cases p times: every payload in each codec in Go, and
// those the JVM times.
func (p Plan) Cases() (inGo, onJVM []codecbench.Case, err error) {
	if inGo, err = codecbench.CasesOf(p.Payloads, p.Codecs); err != nil {
		return nil, nil, err
	}
	if p.JVM {
		onJVM = jvm.CodecCasesOf(inGo)
	}
	return inGo, onJVM, nil
}

// Estimate is about how long timing p takes: in Go, Processes processes
// each timing every case as a fast operation takes
// (codecbench.Options.Typical); on the JVM, JMH's iterations
// (jvm.CodecOptions.Floor). Zero without codecs.
func (p Plan) Estimate() time.Duration {
	if len(p.Codecs) == 0 {
		return 0
	}
	inGo, onJVM, err := p.Cases()
	if err != nil {
		return 0 // refused when the experiment starts
	}
	return time.Duration(Processes*len(inGo))*codecbench.Options{}.Typical() + p.JMH.Options(p.Seed).Floor(len(onJVM))
}

// Time times p's cases in Processes processes of bin's codec-process (and
// JMH forks on the JVM), calling progress as each timing ends, and writes
// them to dir/File; what was timed before an interruption is kept.
func (p Plan) Time(ctx context.Context, bin, dir string, progress func(i, n int, r codecbench.Result)) error {
	cases, onJVM, err := p.Cases()
	if err != nil {
		return err
	}
	done, total := 0, len(cases)+len(onJVM)
	ended := func(r codecbench.Result) {
		if done++; progress != nil {
			progress(done-1, total, r)
		}
	}
	timed, err := codecbench.RunProcesses(ctx, []string{bin, "codec-process"}, cases, codecbench.Options{Seed: p.Seed}, Processes, nil)
	for _, r := range timed {
		ended(r)
	}
	if err == nil {
		var jvmTimed []codecbench.Result
		jvmTimed, err = jvm.TimeExperimentCodecs(ctx, onJVM, p.JMH.Options(p.Seed), ended)
		timed = append(timed, jvmTimed...)
	}
	if len(timed) > 0 {
		if werr := results.WriteFileAtomic(filepath.Join(dir, File), func(w io.Writer) error { return codecbench.WriteJSON(w, timed) }); werr != nil {
			return werr
		}
	}
	if err != nil {
		return fmt.Errorf("timing codecs: %w", err)
	}
	return nil
}
