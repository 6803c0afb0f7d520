package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/codecbench"
	"github.com/hopbench/hopbench/internal/environment"
	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/userschema"
)

type codecFlags struct {
	models, codecs, compress []string
	counts                   []int
	format, out              string
	seed                     uint64
	opts                     codecbench.Options
	runtime                  string
	processes                int
	jmh                      jvm.CodecOptions
	proto                    protoOptions
}

func newCodecCommand(a *app) *cobra.Command {
	f := codecFlags{}
	cmd := &cobra.Command{
		Use:   "codec",
		Short: "Measure codecs on the payload models: bytes, marshal and unmarshal time, allocations",
		Long: `Measure every combination of model x count x codec x compression: encoded and
compressed bytes, marshal and unmarshal time per operation, and
allocations per operation. Go's timings are made in --processes processes
of their own (5), one after another: each process's median of its timed
samples (after a warm-up) is one independent run, and the figure is the
median of the runs, with their min-max. The JVM's are made by JMH in
--forks fresh JVMs (5): each fork's mean over its iterations is one run.

Without --count each model runs at the sizes its study used:
` + modelCountsHelp(),
		Example: `  # JSON against Protobuf on your own message, 10 to a payload
  hopbench codec --proto orders.proto --message shop.Order --count 10 --codec json,proto --compress none`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCodec(cmd, a, f) },
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.models, "model", payload.Names(), "payload models")
	fl.IntSliceVar(&f.counts, "count", nil, "item counts, for every model (default: each model's study sizes)")
	fl.StringSliceVar(&f.codecs, "codec", codec.Names(), "codecs")
	fl.StringSliceVar(&f.compress, "compress", codec.CompressionNames(), "compressions")
	fl.StringVar(&f.format, "format", "table", "output format: "+strings.Join(codecbench.Formats, ", "))
	fl.StringVar(&f.out, "out", "", "also write codec.json, codec.csv, codec.md and environment.json to a new directory under `DIR`")
	fl.Uint64Var(&f.opts.Seed, "seed", payload.DefaultSeed, "generator seed: same seed and count, same bytes")
	fl.DurationVar(&f.opts.SampleTime, "sample-time", 10*time.Millisecond, "target duration of one timed sample")
	fl.IntVar(&f.opts.Samples, "samples", 10, "timed samples per operation")
	fl.DurationVar(&f.opts.Budget, "budget", time.Second, "time per operation and case past which fewer samples are taken (never under 3)")
	fl.IntVar(&f.processes, "processes", 5, "Go timings: processes of their own, one after another, each one independent run (1 to 20)")
	fl.StringVar(&f.runtime, "runtime", jvm.Go, "go (this process), or jvm: Jackson and protobuf-java timed with JMH in a JVM of their own, codecs json, proto and, for recipe, proto+convert (Ensor's domain-object conversion included); needs scripts/setup.sh jvm")
	fl.IntVar(&f.jmh.Forks, "forks", 5, "with --runtime jvm: JMH forks (fresh JVMs) per benchmark, each one independent run")
	fl.IntVar(&f.jmh.WarmupIterations, "warmup-iterations", 5, "with --runtime jvm: JMH warm-up iterations a fork, discarded")
	fl.IntVar(&f.jmh.Iterations, "iterations", 5, "with --runtime jvm: JMH measured iterations a fork")
	fl.DurationVar(&f.jmh.Iteration, "iteration-time", time.Second, "with --runtime jvm: time of each JMH iteration")
	f.proto.add(fl)
	return cmd
}

func modelCountsHelp() string {
	var b strings.Builder
	for _, m := range payload.Models() {
		counts := make([]string, len(m.Counts))
		for i, n := range m.Counts {
			counts[i] = fmt.Sprint(n)
		}
		fmt.Fprintf(&b, "  %-9s %s %s: %s\n", m.Name, strings.Join(counts, ", "), m.Unit, m.Doc)
	}
	return b.String()
}

func runCodec(cmd *cobra.Command, a *app, f codecFlags) error {
	if !slices.Contains(codecbench.Formats, f.format) {
		return usageError{fmt.Errorf("--format %q: known formats are %s", f.format, strings.Join(codecbench.Formats, ", "))}
	}
	if err := jvm.CheckRuntime(f.runtime); err != nil {
		return usageError{fmt.Errorf("--runtime: %w", err)}
	}
	if err := useProto(cmd, &f); err != nil {
		return err
	}
	var (
		results []codecbench.Result
		total   int
		runErr  error
	)
	if f.runtime == jvm.JVM {
		results, total, runErr = timeJVMCodecs(cmd, a, f)
		if total == 0 {
			return runErr
		}
	} else {
		cases, err := codecbench.Matrix(f.models, f.counts, f.codecs, f.compress)
		if err != nil {
			return usageError{err}
		}
		total = len(cases)
		results, runErr = timeGoCodecs(cmd.Context(), a, cases, f)
		var usage usageError
		if errors.As(runErr, &usage) {
			return runErr
		}
	}
	env := environment.Describe()
	// What was measured is written even when the run stopped early.
	if len(results) > 0 {
		if err := codecbench.WriteFormat(a.stdout, f.format, results); err != nil {
			return fmt.Errorf("writing results: %w", err)
		}
		if f.out != "" {
			dir, err := writeCodecOut(f.out, env, results)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stderr, "results written to %s\n", dir)
		}
	}
	if runErr != nil {
		return fmt.Errorf("codec run stopped after %d of %d cases: %w", len(results), total, runErr)
	}
	return nil
}

// timeGoCodecs times cases in f.processes processes of their own (each an
// independent run), or in this one when asked for one.
func timeGoCodecs(ctx context.Context, a *app, cases []codecbench.Case, f codecFlags) ([]codecbench.Result, error) {
	if f.processes < 1 || f.processes > codecbench.MaxProcesses {
		return nil, usageError{fmt.Errorf("--processes %d: want 1 to %d", f.processes, codecbench.MaxProcesses)}
	}
	if f.processes == 1 {
		progress := newProgress(a.stderr, len(cases))
		defer progress.done()
		return codecbench.Run(ctx, cases, f.opts, func(i int, r codecbench.Result) {
			progress.step(fmt.Sprintf("%s/%d %s+%s", r.Model, r.Count, r.Codec, r.Compress))
		})
	}
	bin, err := os.Executable()
	if err != nil {
		return nil, err
	}
	progress := newProgress(a.stderr, f.processes)
	defer progress.done()
	return codecbench.RunProcesses(ctx, []string{bin, "codec-process"}, cases, f.opts, f.processes, func(p int) {
		progress.step(fmt.Sprintf("process %d of %d: %d cases", p+1, f.processes, len(cases)))
	})
}

// newCodecProcessCommand is a codec timing's child: a job of cases on
// stdin, their results as JSON on stdout (codecbench.RunProcesses).
func newCodecProcessCommand(a *app) *cobra.Command {
	return &cobra.Command{
		Use:    "codec-process",
		Short:  "Time a job of codec cases read from stdin (hopbench codec's own child)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return codecbench.ServeProcess(cmd.Context(), os.Stdin, a.stdout)
		},
	}
}

// writeCodecOut writes every format into a new timestamped directory under
// root, each file atomically, and returns the directory.
func writeCodecOut(root string, env environment.Environment, timed []codecbench.Result) (string, error) {
	dir := filepath.Join(root, "codec-"+env.Time.Format("20060102-150405"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("creating results directory: %w", err)
	}
	files := []struct {
		name, format string
	}{{"codec.json", "json"}, {"codec.csv", "csv"}, {"codec.md", "markdown"}}
	for _, file := range files {
		err := results.WriteFileAtomic(filepath.Join(dir, file.name), func(w io.Writer) error {
			return codecbench.WriteFormat(w, file.format, timed)
		})
		if err != nil {
			return "", err
		}
	}
	err := results.WriteFileAtomic(filepath.Join(dir, "environment.json"), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(env)
	})
	return dir, err
}

// useProto registers the user's message named by --proto and --message,
// and makes it the model measured (with the built-in models --model names)
// by every codec that carries it, unless --codec says which.
func useProto(cmd *cobra.Command, f *codecFlags) error {
	m, err := f.proto.use(cmd.Context())
	if m == nil || err != nil {
		return err
	}
	if cmd.Flags().Changed("model") {
		f.models = append(f.models, m.Name)
	} else {
		f.models = []string{m.Name}
	}
	if !cmd.Flags().Changed("codec") {
		f.codecs = slices.DeleteFunc(f.codecs, func(c string) bool { return codecbench.Carries(c, *m) != nil })
	}
	f.opts.Protos = []userschema.Source{f.proto.src}
	return nil
}
