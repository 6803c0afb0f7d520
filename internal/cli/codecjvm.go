package cli

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hopbench/hopbench/internal/codecbench"
	"github.com/hopbench/hopbench/internal/jvm"
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
	if err := j.Check(); err != nil {
		return nil, 0, usageError{fmt.Errorf("JMH's %v (--forks, --warmup-iterations, --iterations, --iteration-time)", err)}
	}
	j.Seed = f.opts.Seed
	asked := jvm.CodecCodecs
	if fl.Changed("codec") {
		asked = f.codecs
	}
	// Each model and count, checked and defaulted as Go's timing takes them.
	goCases, err := codecbench.Matrix(f.models, f.counts, []string{"json"}, []string{"none"})
	if err != nil {
		return nil, 0, usageError{err}
	}
	gets := make([]jvm.Get, len(goCases))
	for i, c := range goCases {
		gets[i] = jvm.Get{Model: c.Model, Count: c.Count}
	}
	cases := jvm.Cases(gets, asked)
	if len(cases) == 0 {
		return nil, 0, usageError{fmt.Errorf("--codec %s: proto+convert is Ensor's conversion, for his model, recipe, alone", strings.Join(f.codecs, ","))}
	}
	each := time.Duration(j.Forks)*(time.Duration(j.WarmupIterations+j.Iterations)*j.Iteration+2*time.Second) + time.Second // a JVM to start per fork, and JMH's own
	n := len(cases)
	fmt.Fprintf(a.stderr, "hopbench codec: %s; %d benchmarks (marshal and unmarshal of %d cases), about %s\n", j.Method(), 2*n, n, (time.Duration(2*n) * each).Round(time.Second))
	progress := newProgress(a.stderr, n)
	results, err := jvm.TimeCodecs(cmd.Context(), cases, j, func(r codecbench.Result) {
		progress.step(fmt.Sprintf("%s/%d %s on the JVM", r.Model, r.Count, r.Codec))
	})
	progress.done()
	return results, n, err
}
