package experiment

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/hopbench/hopbench/internal/codecbench"
	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/transport"
)

// jvmSetup is how an experiment starts its JVM nodes: the node's build,
// and the seeds files that give their get replies the Go generator's data,
// one for each generator seed the runs use (a part may set its own).
type jvmSetup struct {
	jar, dir string
	seeds    map[uint64]string
}

// jvmNodes prepares the JVM's nodes when some runs have them: it finds the
// node's build (an experiment that needs it and lacks it fails before any
// run) and writes the seeds of every get those runs make.
func jvmNodes(runs []Run) (*jvmSetup, error) {
	if !slices.ContainsFunc(runs, Run.OnJVM) {
		return nil, nil
	}
	gets := map[uint64][]jvm.Get{}
	for _, r := range runs {
		if r.OnJVM() {
			g := gets[r.Seed]
			if r.Op == string(transport.OpGet) {
				g = append(g, jvm.Get{Model: r.Model, Count: r.Count})
			}
			gets[r.Seed] = g
		}
	}
	jar, err := jvm.Jar()
	if err != nil {
		return nil, fmt.Errorf("runtime jvm: %w", err)
	}
	dir, err := os.MkdirTemp("", "hopbench-jvm-")
	if err != nil {
		return nil, err
	}
	s := &jvmSetup{jar: jar, dir: dir, seeds: map[uint64]string{}}
	for seed, g := range gets {
		s.seeds[seed] = filepath.Join(dir, fmt.Sprintf("seeds-%d.bin", seed))
		if err := jvm.WriteSeeds(s.seeds[seed], g, seed); err != nil {
			s.close()
			return nil, fmt.Errorf("runtime jvm: %w", err)
		}
	}
	return s, nil
}

// command starts a JVM node of run r.
func (s *jvmSetup) command(r Run) []string {
	return jvm.Command(s.jar, r.JVMFlags)
}

// args are a JVM node's flags beyond its addresses: the JVM node takes the
// stack, the seeds of the run's generator seed and the cache; what else a
// Go node would be told, validation has refused for the JVM.
func (s *jvmSetup) args(r Run) []string {
	args := []string{"--stack", r.Stack, "--seeds", s.seeds[r.Seed]}
	if r.Cache {
		args = append(args, "--cache")
	}
	return args
}

func (s *jvmSetup) close() { os.RemoveAll(s.dir) }

// jvmCodecCases are the JVM's side of a spec's codec cases: json as
// Jackson, proto as protobuf-java and with it Ensor's conversion (where
// the model is his), on the models and counts Go's timings had.
func jvmCodecCases(cases []codecbench.Case) []codecbench.Case {
	var gets []jvm.Get
	var asked []string
	for _, c := range cases {
		if c.Compress != "none" || !slices.Contains(jvm.CodecCodecs, c.Codec) {
			continue
		}
		if !slices.Contains(asked, c.Codec) {
			asked = append(asked, c.Codec)
		}
		if g := (jvm.Get{Model: c.Model, Count: c.Count}); !slices.Contains(gets, g) {
			gets = append(gets, g)
		}
	}
	if slices.Contains(asked, "proto") {
		asked = append(asked, "proto+convert")
	}
	return jvm.Cases(gets, asked)
}

// timeJVMCodecs times the JVM's codec cases with JMH.
func timeJVMCodecs(ctx context.Context, cases []codecbench.Case, seed uint64, progress func(codecbench.Result)) ([]codecbench.Result, error) {
	if len(cases) == 0 {
		return nil, nil
	}
	o := jvm.CodecOptions{Forks: 1, WarmupIterations: 5, Iterations: 5, Iteration: time.Second, Seed: seed}
	timed, err := jvm.TimeCodecs(ctx, cases, o, progress)
	if err != nil {
		return timed, fmt.Errorf("runtime jvm: %w", err)
	}
	return timed, nil
}
