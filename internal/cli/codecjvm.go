package cli

import (
	"fmt"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/hopbench/hopbench/internal/codecbench"
	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/payload"
)

// timeJVMCodecs times Jackson and protobuf-java with JMH: the models and
// counts asked, each codec the JVM has. It returns what was measured, the
// cases there were (0 when the flags were refused, with the error).
func timeJVMCodecs(cmd *cobra.Command, a *app, f codecFlags) ([]codecbench.Result, int, error) {
	fl := cmd.Flags()
	if fl.Changed("codec") {
		for _, c := range f.codecs {
			if !slices.Contains(jvm.CodecCodecs, c) {
				return nil, 0, usageError{fmt.Errorf("--runtime jvm times the codecs %v, not %s", jvm.CodecCodecs, c)}
			}
		}
	}
	if fl.Changed("compress") && !slices.Equal(f.compress, []string{"none"}) {
		return nil, 0, usageError{fmt.Errorf("--runtime jvm times codecs without compression (--compress none)")}
	}
	for _, name := range []string{"sample-time", "samples", "budget"} {
		if fl.Changed(name) {
			return nil, 0, usageError{fmt.Errorf("--%s is Go's timing; JMH's is --forks, --warmup-iterations, --iterations and --iteration-time", name)}
		}
	}
	j := f.jmh
	if j.Forks < 1 || j.Forks > 10 || j.WarmupIterations < 0 || j.WarmupIterations > 100 || j.Iterations < 1 || j.Iterations > 100 || j.Iteration < 100*time.Millisecond || j.Iteration > time.Minute {
		return nil, 0, usageError{fmt.Errorf("JMH: want 1 to 10 --forks, 0 to 100 --warmup-iterations, 1 to 100 --iterations, and an --iteration-time of 100ms to 1m")}
	}
	j.Seed = f.opts.Seed
	var gets []jvm.Get
	cases := 0
	for _, name := range f.models {
		m, err := payload.Lookup(name)
		if err != nil {
			return nil, 0, usageError{err}
		}
		for _, n := range countsOr(f.counts, m.Counts) {
			if err := m.CheckCount(n); err != nil {
				return nil, 0, usageError{err}
			}
			gets = append(gets, jvm.Get{Model: name, Count: n})
			cases += 2
			if name == "recipe" {
				cases++ // proto+convert
			}
		}
	}
	each := time.Duration(j.Forks)*(time.Duration(j.WarmupIterations+j.Iterations)*j.Iteration+2*time.Second) + time.Second // a JVM to start per fork, and JMH's own
	fmt.Fprintf(a.stderr, "hopbench codec: %s; %d benchmarks (marshal and unmarshal of %d cases), about %s\n", j.Method(), 2*cases, cases, (time.Duration(2*cases) * each).Round(time.Second))
	progress := newProgress(a.stderr, cases)
	results, err := jvm.TimeCodecs(cmd.Context(), gets, j, func(r codecbench.Result) {
		progress.step(fmt.Sprintf("%s/%d %s on the JVM", r.Model, r.Count, r.Codec))
	})
	progress.done()
	return results, cases, err
}

// countsOr is counts when given, else the model's own.
func countsOr(counts, own []int) []int {
	if len(counts) > 0 {
		return counts
	}
	return own
}
