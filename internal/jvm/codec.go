package jvm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hopbench/hopbench/internal/codecbench"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/userschema"
)

// JMHVersion is the JMH the JVM node is built with (jvm/node/pom.xml).
const JMHVersion = "1.37"

// CodecOptions are how JMH times the JVM's codecs, stated with every
// result (codecbench.Result.Method).
type CodecOptions struct {
	Forks, WarmupIterations, Iterations int
	// Iteration is the time of each warm-up and measured iteration.
	Iteration time.Duration
	Seed      uint64
}

// Check refuses settings outside the bounds hopbench runs JMH within,
// naming the first one out of them.
func (o CodecOptions) Check() error {
	switch {
	case o.Forks < 1 || o.Forks > 10:
		return fmt.Errorf("forks %d: want 1 to 10", o.Forks)
	case o.WarmupIterations < 0 || o.WarmupIterations > 100:
		return fmt.Errorf("warm-up iterations %d: want 0 to 100", o.WarmupIterations)
	case o.Iterations < 1 || o.Iterations > 100:
		return fmt.Errorf("iterations %d: want 1 to 100", o.Iterations)
	case o.Iteration < 100*time.Millisecond || o.Iteration > time.Minute:
		return fmt.Errorf("iteration time %s: want 100ms to 1m", o.Iteration)
	}
	return nil
}

// Floor is the least time JMH takes to time cases: each case's two
// benchmarks (marshal, unmarshal), each in Forks forks of its warm-up and
// measured iterations; the forks' start-up comes on top.
func (o CodecOptions) Floor(cases int) time.Duration {
	return time.Duration(cases*2*o.Forks*(o.WarmupIterations+o.Iterations)) * o.Iteration
}

// Method says how JMH ran, for the record.
func (o CodecOptions) Method() string {
	return fmt.Sprintf("JMH %s, average time, %d fork(s), %d×%s warm-up and %d×%s measured iterations a fork",
		JMHVersion, o.Forks, o.WarmupIterations, o.Iteration, o.Iterations, o.Iteration)
}

// CodecCodecs are the codecs the JVM times: Jackson's JSON, protobuf-java,
// and, for Ensor's model (recipe), protobuf-java with his conversion
// between the domain object and the message.
var CodecCodecs = []string{"json", "proto", "proto+convert"}

// benchmarks are CodecBench's methods by codec: marshal, unmarshal.
var benchmarks = map[string][2]string{
	"json": {"jsonMarshal", "jsonUnmarshal"}, "proto": {"protoMarshal", "protoUnmarshal"},
	"proto+convert": {"protoConvertMarshal", "protoConvertUnmarshal"},
}

// Cases are the codec cases the JVM times of gets, among the codecs
// asked, in CodecCodecs' order: proto+convert is Ensor's conversion, so
// only recipe, his model, has it.
func Cases(gets []Get, asked []string) []codecbench.Case {
	var cases []codecbench.Case
	for _, g := range gets {
		for _, c := range CodecCodecs {
			if slices.Contains(asked, c) && (c != "proto+convert" || g.Model == "recipe") {
				cases = append(cases, codecbench.Case{Model: g.Model, Count: g.Count, Codec: c, Compress: "none", Runtime: JVM})
			}
		}
	}
	return cases
}

// TimeCodecs times cases (see Cases) with JMH in JVMs of their own, on the
// Go generator's messages, and returns them as codecbench results: bytes
// as the JVM encodes them, times per operation from JMH's iterations, and
// allocated bytes per operation.
func TimeCodecs(ctx context.Context, cases []codecbench.Case, o CodecOptions, progress func(codecbench.Result)) ([]codecbench.Result, error) {
	jar, err := Jar()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "hopbench-jmh-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	gets := make([]Get, len(cases)) // WriteSeeds writes each once
	for i, c := range cases {
		gets[i] = Get{Model: c.Model, Count: c.Count}
	}
	seeds := filepath.Join(dir, "seeds.bin")
	if err := WriteSeeds(seeds, gets, o.Seed); err != nil {
		return nil, err
	}
	cp := classpath(jar)
	var out []codecbench.Result
	sizes := map[Get]map[string]int{}
	for _, c := range cases {
		g := Get{Model: c.Model, Count: c.Count}
		desc, err := descriptorsOf(dir, c.Model)
		if err != nil {
			return out, err
		}
		if sizes[g] == nil {
			if sizes[g], err = encodedSizes(ctx, cp, seeds, desc, g); err != nil {
				return out, err
			}
		}
		r, err := runJMH(ctx, cp, seeds, desc, dir, c, o)
		if err != nil {
			return out, err
		}
		r.Bytes = sizes[g][strings.TrimSuffix(c.Codec, "+convert")]
		r.CompressedBytes = r.Bytes
		out = append(out, r)
		if progress != nil {
			progress(r)
		}
	}
	return out, nil
}

// classpath is the node's Quarkus layout: its classes, then its libraries.
func classpath(jar string) string {
	app := filepath.Dir(jar)
	return strings.Join([]string{filepath.Join(app, "app", "*"), filepath.Join(app, "lib", "main", "*"), filepath.Join(app, "lib", "boot", "*")}, string(os.PathListSeparator))
}

// descriptorsOf writes into dir, once, the descriptor set of model when it
// is a user's message (userschema.Use); "" for a built-in model.
func descriptorsOf(dir, model string) (string, error) {
	p, ok := userschema.Used(model)
	if !ok {
		return "", nil
	}
	path := filepath.Join(dir, model+".descriptors")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	return path, WriteDescriptors(path, p)
}

func encodedSizes(ctx context.Context, cp, seeds, desc string, g Get) (map[string]int, error) {
	out, err := javaOutput(ctx, "-cp", cp, "dev.hopbench.node.CodecBench", seeds, desc, g.Model, strconv.Itoa(g.Count))
	if err != nil {
		return nil, err
	}
	var s struct{ JSON, Proto int }
	if err := json.Unmarshal(bytes.TrimSpace(out), &s); err != nil {
		return nil, fmt.Errorf("jvm codec sizes of %s×%d: %w (%q)", g.Model, g.Count, err, out)
	}
	return map[string]int{"json": s.JSON, "proto": s.Proto}, nil
}

func runJMH(ctx context.Context, cp, seeds, desc, dir string, c codecbench.Case, o CodecOptions) (codecbench.Result, error) {
	file := filepath.Join(dir, "jmh.json")
	pair := benchmarks[c.Codec]
	it := fmt.Sprintf("%dms", o.Iteration.Milliseconds())
	args := []string{"-cp", cp, "org.openjdk.jmh.Main", `dev\.hopbench\.node\.CodecBench\.(` + pair[0] + "|" + pair[1] + `)$`,
		"-p", "model=" + c.Model, "-p", "count=" + strconv.Itoa(c.Count), "-p", "seeds=" + seeds,
		"-f", strconv.Itoa(o.Forks), "-wi", strconv.Itoa(o.WarmupIterations), "-w", it, "-i", strconv.Itoa(o.Iterations), "-r", it,
		"-prof", "gc", "-rf", "json", "-rff", file}
	if desc != "" { // a user's message, built in each fork from its descriptor set
		args = append(args, "-p", "descriptors="+desc)
	}
	err := waitingForJMHLock(ctx, func() error {
		_, err := javaOutput(ctx, args...)
		return err
	})
	if err != nil {
		return codecbench.Result{}, err
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return codecbench.Result{}, err
	}
	timings, err := parseJMH(b)
	if err != nil {
		return codecbench.Result{}, err
	}
	m, okM := timings[pair[0]]
	u, okU := timings[pair[1]]
	if !okM || !okU {
		return codecbench.Result{}, fmt.Errorf("JMH reported no %s or %s for %s×%d", pair[0], pair[1], c.Model, c.Count)
	}
	return codecbench.Result{Case: c, Marshal: m, Unmarshal: u, Method: o.Method()}, nil
}

// jmhLockWait bounds how long a JMH run waits for another one to finish.
var jmhLockWait = 10 * time.Minute

// waitingForJMHLock runs JMH, and runs it again while another JMH on this
// machine holds JMH's lock: two at once would time each other, so hopbench
// waits its turn (bounded by jmhLockWait) rather than forcing past the lock.
func waitingForJMHLock(ctx context.Context, run func() error) error {
	deadline := time.Now().Add(jmhLockWait)
	for {
		err := run()
		if err == nil || !strings.Contains(err.Error(), "Unable to acquire the JMH lock") {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("another JMH run held its lock for over %v; let it finish and run again: %w", jmhLockWait, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
}

// jmhResult is what JMH's -rf json says of one benchmark.
type jmhResult struct {
	Benchmark     string `json:"benchmark"`
	PrimaryMetric struct {
		Score     float64     `json:"score"`
		ScoreUnit string      `json:"scoreUnit"`
		RawData   [][]float64 `json:"rawData"`
	} `json:"primaryMetric"`
	SecondaryMetrics map[string]struct {
		Score float64 `json:"score"`
	} `json:"secondaryMetrics"`
}

// parseJMH reads JMH's results into timings by method: the median of the
// measured iterations (every fork's), their min and max, and bytes
// allocated per operation.
func parseJMH(b []byte) (map[string]codecbench.Timing, error) {
	var rs []jmhResult
	if err := json.Unmarshal(b, &rs); err != nil {
		return nil, fmt.Errorf("reading JMH's results: %w", err)
	}
	out := map[string]codecbench.Timing{}
	for _, r := range rs {
		if r.PrimaryMetric.ScoreUnit != "ns/op" {
			return nil, fmt.Errorf("JMH scored %s in %s, want ns/op", r.Benchmark, r.PrimaryMetric.ScoreUnit)
		}
		var samples, forks []float64
		for _, fork := range r.PrimaryMetric.RawData {
			samples = append(samples, fork...)
			if len(fork) > 0 {
				forks = append(forks, mean(fork)) // a fork is one independent run
			}
		}
		if len(samples) == 0 {
			return nil, fmt.Errorf("JMH measured no iteration of %s", r.Benchmark)
		}
		sp := slices.Sorted(slices.Values(samples))
		t := codecbench.Timing{MedianNs: results.SpreadOf(sp).Median, MinNs: sp[0], MaxNs: sp[len(sp)-1], Samples: len(sp), SamplesNs: sp, RunsNs: forks, NoAllocs: true}
		norm, ok := r.SecondaryMetrics["gc.alloc.rate.norm"]
		if !ok {
			norm, ok = r.SecondaryMetrics["·gc.alloc.rate.norm"] // JMH before 1.37
		}
		if !ok {
			return nil, fmt.Errorf("JMH's gc profiler reported no gc.alloc.rate.norm for %s", r.Benchmark)
		}
		t.BytesPerOp = norm.Score
		out[r.Benchmark[strings.LastIndex(r.Benchmark, ".")+1:]] = t
	}
	return out, nil
}

// javaOutput runs java, returning its stdout; when it fails, the end of
// what it wrote (JMH reports its failures on stdout) says why. The JVM is
// killed with the context, and if this process dies.
func javaOutput(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "java", args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		said := strings.TrimSpace(stderr.String() + "\n" + string(out))
		return nil, fmt.Errorf("java %s: %w: %s", args[2], err, said[max(0, len(said)-2000):])
	}
	return out, nil
}

func mean(vs []float64) float64 {
	var sum float64
	for _, v := range vs {
		sum += v
	}
	return sum / float64(len(vs))
}
