package experiment

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	"github.com/hopbench/hopbench/internal/codecbench"
	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/results"
)

// CodecFile is the name of the codec timings file in a results directory.
const CodecFile = "codec.json"

// CodecProcesses is how many processes of their own time a spec's codecs
// in Go: each one independent run.
const CodecProcesses = 5

// JMHSpec is how JMH times the JVM's codecs in an experiment; what it
// leaves out is jvm.ExperimentCodecOptions'.
type JMHSpec struct {
	Forks            *int      `yaml:"forks" json:"forks,omitempty" jsonschema_description:"JMH forks (fresh JVMs) a benchmark, each one independent run: 1 to 10 (default 5)."`
	WarmupIterations *int      `yaml:"warmup_iterations" json:"warmup_iterations,omitempty" jsonschema_description:"Warm-up iterations a fork, discarded: 0 to 100 (default 3)."`
	Iterations       *int      `yaml:"iterations" json:"iterations,omitempty" jsonschema_description:"Measured iterations a fork: 1 to 100 (default 3)."`
	IterationTime    *Duration `yaml:"iteration_time" json:"iteration_time,omitempty" jsonschema_description:"Time of each warm-up and measured iteration: 100ms to 1m (default 1s)."`
}

// onJVM says some of s's nodes, and its codecs, run on the JVM.
func (s *Spec) onJVM() bool { return slices.Contains(s.Runtimes, jvm.JVM) }

// jmhOptions are how JMH times s's codecs: its jmh, defaults for what
// that leaves out.
func (s *Spec) jmhOptions() jvm.CodecOptions {
	o := jvm.ExperimentCodecOptions()
	o.Seed = s.Seed
	if j := s.JMH; j != nil {
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
	}
	return o
}

// timeCodecs times the spec's codecs on every payload the runs use, in
// CodecProcesses processes (and JMH forks on the JVM), and writes them to
// CodecFile; what was timed before an interruption
// is kept.
func (x *Runner) timeCodecs(ctx context.Context, s *Spec, runs []Run) error {
	cases, onJVM, err := s.codecCases(runs)
	if err != nil {
		return err
	}
	done, total := 0, len(cases)+len(onJVM)
	progress := func(r codecbench.Result) {
		if done++; x.OnCodec != nil {
			x.OnCodec(done-1, total, r)
		}
	}
	timed, err := codecbench.RunProcesses(ctx, []string{x.Bin, "codec-process"}, cases, codecbench.Options{Seed: s.Seed}, CodecProcesses, nil)
	for _, r := range timed {
		progress(r)
	}
	if err == nil {
		var jvmTimed []codecbench.Result
		jvmTimed, err = jvm.TimeExperimentCodecs(ctx, onJVM, s.jmhOptions(), progress)
		timed = append(timed, jvmTimed...)
	}
	if len(timed) > 0 {
		if werr := results.WriteFileAtomic(filepath.Join(x.Dir, CodecFile), func(w io.Writer) error { return codecbench.WriteJSON(w, timed) }); werr != nil {
			return werr
		}
	}
	if err != nil {
		return fmt.Errorf("timing codecs: %w", err)
	}
	return nil
}

// codecCases are the cases s's codecs are timed on: every payload of runs
// in each codec in Go, and those the JVM times.
func (s *Spec) codecCases(runs []Run) (inGo, onJVM []codecbench.Case, err error) {
	payloads := make([]codecbench.Case, len(runs))
	for i, r := range runs {
		payloads[i] = codecbench.Case{Model: r.Model, Count: r.Count}
	}
	if inGo, err = codecbench.CasesOf(payloads, s.Codecs); err != nil {
		return nil, nil, err
	}
	if s.onJVM() {
		onJVM = jvm.CodecCasesOf(inGo)
	}
	return inGo, onJVM, nil
}

// CodecEstimate is about how long timing s's codecs on runs' payloads
// takes, before the runs: in Go, CodecProcesses processes each timing every
// case as a fast operation takes (codecbench.Options.Typical); on the JVM,
// JMH's iterations (jvm.CodecOptions.Floor). Zero without codecs.
func (s *Spec) CodecEstimate(runs []Run) time.Duration {
	if len(s.Codecs) == 0 {
		return 0
	}
	inGo, onJVM, err := s.codecCases(runs)
	if err != nil {
		return 0 // refused when the experiment starts
	}
	return time.Duration(CodecProcesses*len(inGo))*codecbench.Options{}.Typical() + s.jmhOptions().Floor(len(onJVM))
}
