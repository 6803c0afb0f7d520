package experiment

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/hopbench/hopbench/internal/codecbench"
	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/results"
)

// CodecFile is the name of the codec timings file in a results directory.
const CodecFile = "codec.json"

// CodecProcesses is how many processes of their own time a spec's codecs
// in Go: each one independent run.
const CodecProcesses = 5

// timeCodecs times the spec's codecs on every payload the runs use, in
// CodecProcesses processes (and JMH forks on the JVM), and writes them to
// CodecFile; what was timed before an interruption
// is kept.
func (x *Runner) timeCodecs(ctx context.Context, s *Spec, runs []Run) error {
	payloads := make([]codecbench.Case, len(runs))
	for i, r := range runs {
		payloads[i] = codecbench.Case{Model: r.Model, Count: r.Count}
	}
	cases, err := codecbench.CasesOf(payloads, s.Codecs)
	if err != nil {
		return err
	}
	var onJVM []codecbench.Case
	if slices.Contains(s.Runtimes, jvm.JVM) {
		onJVM = jvm.CodecCasesOf(cases)
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
		jvmTimed, err = jvm.TimeExperimentCodecs(ctx, onJVM, s.Seed, progress)
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
