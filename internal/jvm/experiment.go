package jvm

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/hopbench/hopbench/internal/codecbench"
)

// CodecCasesOf are the JVM's side of a spec's codec cases: json as
// Jackson, proto as protobuf-java and with it Ensor's conversion (where
// the model is his), on the models and counts Go's timings had.
func CodecCasesOf(cases []codecbench.Case) []codecbench.Case {
	var gets []Get
	var asked []string
	for _, c := range cases {
		if c.Compress != "none" || !slices.Contains(CodecCodecs, c.Codec) {
			continue
		}
		if !slices.Contains(asked, c.Codec) {
			asked = append(asked, c.Codec)
		}
		if g := (Get{Model: c.Model, Count: c.Count}); !slices.Contains(gets, g) {
			gets = append(gets, g)
		}
	}
	if slices.Contains(asked, "proto") {
		asked = append(asked, "proto+convert")
	}
	return Cases(gets, asked)
}

// ExperimentCodecOptions are how JMH times an experiment's codecs unless
// its spec says otherwise: five forks, each an independent run (a verdict
// needs 4 runs a side at least), with three warm-up and three measured
// iterations of a second.
func ExperimentCodecOptions() CodecOptions {
	return CodecOptions{Forks: 5, WarmupIterations: 3, Iterations: 3, Iteration: time.Second}
}

// TimeExperimentCodecs times the JVM's codecs with JMH as o says.
func TimeExperimentCodecs(ctx context.Context, cases []codecbench.Case, o CodecOptions, progress func(codecbench.Result)) ([]codecbench.Result, error) {
	if len(cases) == 0 {
		return nil, nil
	}
	timed, err := TimeCodecs(ctx, cases, o, progress)
	if err != nil {
		return timed, fmt.Errorf("runtime jvm: %w", err)
	}
	return timed, nil
}
