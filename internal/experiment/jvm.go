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
// and the seeds file that gives their get replies the Go generator's data.
type jvmSetup struct {
	jar, dir, seeds string
}

// jvmNodes prepares the JVM's nodes when some runs have them: it finds the
// node's build (an experiment that needs it and lacks it fails before any
// run) and writes the seeds of every get those runs make.
func jvmNodes(runs []Run) (*jvmSetup, error) {
	var gets []jvm.Get
	var seed uint64
	for _, r := range runs {
		if r.OnJVM() && r.Op == string(transport.OpGet) {
			gets, seed = append(gets, jvm.Get{Model: r.Model, Count: r.Count}), r.Seed
		}
	}
	if !slices.ContainsFunc(runs, Run.OnJVM) {
		return nil, nil
	}
	jar, err := jvm.Jar()
	if err != nil {
		return nil, fmt.Errorf("runtime jvm: %w", err)
	}
	dir, err := os.MkdirTemp("", "hopbench-jvm-")
	if err != nil {
		return nil, err
	}
	s := &jvmSetup{jar: jar, dir: dir, seeds: filepath.Join(dir, "seeds.bin")}
	if err := jvm.WriteSeeds(s.seeds, gets, seed); err != nil {
		s.close()
		return nil, fmt.Errorf("runtime jvm: %w", err)
	}
	return s, nil
}

// command starts a JVM node of run r.
func (s *jvmSetup) command(r Run) []string {
	return jvm.Command(s.jar, r.JVMFlags)
}

// args are a JVM node's flags beyond its addresses: the JVM node takes the
// stack and the seeds; what else a Go node would be told, validation has
// refused for the JVM.
func (s *jvmSetup) args(r Run) []string {
	return []string{"--stack", r.Stack, "--seeds", s.seeds}
}

func (s *jvmSetup) close() { os.RemoveAll(s.dir) }

// jvmCodecs is what the JVM times of a spec's codec cases: json as
// Jackson, proto as protobuf-java, and Ensor's conversion where the model
// is his, on the models and counts Go's timings had; n counts them.
type jvmCodecs struct {
	gets   []jvm.Get
	wanted map[string]bool
	n      int
}

func planJVMCodecs(cases []codecbench.Case) jvmCodecs {
	p := jvmCodecs{wanted: map[string]bool{}}
	for _, c := range cases {
		if c.Compress != "none" || !slices.Contains(jvm.CodecCodecs, c.Codec) {
			continue
		}
		p.wanted[c.Codec] = true
		if g := (jvm.Get{Model: c.Model, Count: c.Count}); !slices.Contains(p.gets, g) {
			p.gets = append(p.gets, g)
		}
	}
	for _, g := range p.gets {
		for c := range p.wanted {
			if p.n++; c == "proto" && g.Model == "recipe" {
				p.n++ // proto+convert
			}
		}
	}
	return p
}

// time runs JMH on the plan.
func (p jvmCodecs) time(ctx context.Context, seed uint64, progress func(codecbench.Result)) ([]codecbench.Result, error) {
	if len(p.gets) == 0 {
		return nil, nil
	}
	o := jvm.CodecOptions{Forks: 1, WarmupIterations: 5, Iterations: 5, Iteration: time.Second, Seed: seed}
	keep := func(r codecbench.Result) bool {
		return p.wanted[r.Codec] || r.Codec == "proto+convert" && p.wanted["proto"]
	}
	var timed []codecbench.Result
	_, err := jvm.TimeCodecs(ctx, p.gets, o, func(r codecbench.Result) {
		if keep(r) {
			timed = append(timed, r)
			progress(r)
		}
	})
	if err != nil {
		return timed, fmt.Errorf("runtime jvm: %w", err)
	}
	return timed, nil
}
