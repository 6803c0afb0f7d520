// Package codecbench measures codecs on payload models: encoded and
// compressed size, marshal and unmarshal time, and allocations per operation.
//
// Timing: after a warm-up that also sizes the batch, each sample times a batch
// of operations long enough to dwarf the clock's resolution; the per-op
// figure is the median of the samples, reported with their min and max.
// Allocations are counted in a separate batch so that reading the memory
// statistics never lands inside a timed sample.
package codecbench

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/userschema"
)

// Case is one cell of the matrix.
type Case struct {
	Model    string
	Count    int
	Codec    string
	Compress string
	// Runtime is where the codec ran: empty for Go (in this process), or
	// jvm (JMH; see package jvm).
	Runtime string
}

// Options control the timing. Zero values take the defaults.
type Options struct {
	Seed uint64
	// SampleTime is how long one timed sample should take (default 10ms).
	SampleTime time.Duration
	// Samples is how many timed samples to take (default 10).
	Samples int
	// MinSamples is the least taken even when an op is slow (default 3).
	MinSamples int
	// Budget bounds the timing of one operation of one case (default 1s);
	// past it fewer samples are taken, never fewer than MinSamples.
	Budget time.Duration
	// Protos are users' messages the cases may name, registered in each
	// process that times them (userschema.Use).
	Protos []userschema.Source `json:",omitempty"`
}

func (o Options) withDefaults() Options {
	if o.Seed == 0 {
		o.Seed = payload.DefaultSeed
	}
	if o.SampleTime <= 0 {
		o.SampleTime = 10 * time.Millisecond
	}
	if o.Samples <= 0 {
		o.Samples = 10
	}
	if o.MinSamples <= 0 {
		o.MinSamples = 3
	}
	o.MinSamples = min(o.MinSamples, o.Samples)
	if o.Budget <= 0 {
		o.Budget = time.Second
	}
	return o
}

// Typical is how long timing one case usually takes: its marshal and its
// unmarshal, each a warm-up and Samples samples of SampleTime, as a fast
// operation is timed. A slower one takes longer: about Budget, or
// MinSamples of its own time if that is more.
func (o Options) Typical() time.Duration {
	o = o.withDefaults()
	return 2 * time.Duration(1+o.Samples) * o.SampleTime
}

// Timing is the per-operation time of one operation, in nanoseconds.
type Timing struct {
	MedianNs float64 `json:"median_ns"`
	MinNs    float64 `json:"min_ns"`
	MaxNs    float64 `json:"max_ns"`
	Samples  int     `json:"samples"`
	// SamplesNs are the samples' times per op, in order of size: what
	// the median is of, and what a comparison's interval is drawn from.
	SamplesNs []float64 `json:"samples_ns,omitempty"`
	// OpsPerSample is the batch size each sample timed.
	OpsPerSample int `json:"ops_per_sample"`
	// RunsNs are the independent runs' figures, one a run: each process's
	// median (Go, RunProcesses), each JMH fork's mean over its iterations
	// (JVM). What "runs a side" counts; nil for a timing of one process.
	RunsNs []float64 `json:"runs_ns,omitempty"`
	// AllocsPerOp and BytesPerOp are heap allocations per operation.
	// The JVM counts no allocations (NoAllocs), only their bytes (JMH's
	// gc.alloc.rate.norm).
	AllocsPerOp float64 `json:"allocs_per_op"`
	BytesPerOp  float64 `json:"bytes_per_op"`
	NoAllocs    bool    `json:"-"`
}

// Result is the measurement of one case.
type Result struct {
	Case
	// Bytes is the codec's output; CompressedBytes what the compression made
	// of it (equal to Bytes for none).
	Bytes           int
	CompressedBytes int
	Marshal         Timing
	Unmarshal       Timing
	// Method says how another runtime timed it (JMH's mode, forks,
	// warm-up and iterations); empty for Go's own timing.
	Method string
}

// Run measures every case in order, calling progress after each. Messages
// are generated once per model and count. A cancelled ctx stops between
// cases and returns what was measured so far with ctx's error.
func Run(ctx context.Context, cases []Case, opts Options, progress func(i int, r Result)) ([]Result, error) {
	opts = opts.withDefaults()
	var (
		results  []Result
		msgKey   Case
		msg      proto.Message
		newEmpty func() proto.Message
	)
	for i, c := range cases {
		if err := ctx.Err(); err != nil {
			return results, err
		}
		if key := (Case{Model: c.Model, Count: c.Count}); msg == nil || key != msgKey {
			m, err := payload.Lookup(c.Model)
			if err != nil {
				return results, err
			}
			msg, newEmpty = nil, m.New
			runtime.GC() // drop the previous model's message before making the next
			if msg, err = m.Message(c.Count, opts.Seed); err != nil {
				return results, err
			}
			msgKey = key
		}
		r, err := measure(c, msg, newEmpty, opts)
		if err != nil {
			return results, err
		}
		results = append(results, r)
		if progress != nil {
			progress(i, r)
		}
	}
	return results, nil
}

func measure(c Case, msg proto.Message, newEmpty func() proto.Message, opts Options) (Result, error) {
	base, err := codec.Lookup(c.Codec)
	if err != nil {
		return Result{}, err
	}
	z, err := codec.LookupCompression(c.Compress)
	if err != nil {
		return Result{}, err
	}
	cc := codec.Compressed(base, z, math.MaxInt)
	r := Result{Case: c}

	plain, err := base.Marshal(msg)
	if err != nil {
		return r, fmt.Errorf("%s %s/%d: marshal: %w", cc.Name(), c.Model, c.Count, err)
	}
	wire, err := cc.Marshal(msg)
	if err != nil {
		return r, fmt.Errorf("%s %s/%d: marshal: %w", cc.Name(), c.Model, c.Count, err)
	}
	r.Bytes, r.CompressedBytes = len(plain), len(wire)
	plain = nil
	// A codec that loses data would be fast for the wrong reason: check first.
	back := newEmpty()
	if err := cc.Unmarshal(wire, back); err != nil {
		return r, fmt.Errorf("%s %s/%d: unmarshal: %w", cc.Name(), c.Model, c.Count, err)
	}
	if !proto.Equal(msg, back) {
		return r, fmt.Errorf("%s %s/%d: round trip changed the message", cc.Name(), c.Model, c.Count)
	}
	back = nil

	var opErr error
	r.Marshal = timeOp(opts, func() {
		if _, err := cc.Marshal(msg); err != nil && opErr == nil {
			opErr = err
		}
	})
	r.Unmarshal = timeOp(opts, func() {
		if err := cc.Unmarshal(wire, newEmpty()); err != nil && opErr == nil {
			opErr = err
		}
	})
	if opErr != nil {
		return r, fmt.Errorf("%s %s/%d: %w", cc.Name(), c.Model, c.Count, opErr)
	}
	return r, nil
}

// timeOp times op as the package comment describes.
func timeOp(opts Options, op func()) Timing {
	runtime.GC()
	// Warm up for one sample's time, or one op if it is slower; the rate
	// seen sizes the batch.
	start := time.Now()
	warm := 0
	for warm == 0 || time.Since(start) < opts.SampleTime {
		op()
		warm++
	}
	perOp := time.Since(start) / time.Duration(warm)
	batch := max(1, int(opts.SampleTime/max(perOp, 1)))
	samples := opts.Samples
	if cost := perOp * time.Duration(batch*samples); cost > opts.Budget {
		samples = max(opts.MinSamples, int(opts.Budget/(perOp*time.Duration(batch))))
	}

	perOpNs := make([]float64, samples)
	for i := range perOpNs {
		t0 := time.Now()
		for range batch {
			op()
		}
		perOpNs[i] = float64(time.Since(t0).Nanoseconds()) / float64(batch)
	}
	slices.Sort(perOpNs)

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range batch {
		op()
	}
	runtime.ReadMemStats(&after)

	return Timing{
		MedianNs:     median(perOpNs),
		MinNs:        perOpNs[0],
		MaxNs:        perOpNs[len(perOpNs)-1],
		Samples:      samples,
		SamplesNs:    perOpNs,
		OpsPerSample: batch,
		AllocsPerOp:  float64(after.Mallocs-before.Mallocs) / float64(batch),
		BytesPerOp:   float64(after.TotalAlloc-before.TotalAlloc) / float64(batch),
	}
}

// median of sorted values.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// CasesOf is every codec of codecs (each codec[+compression]) on each
// payload's model and count, each payload once, in their order.
func CasesOf(payloads []Case, codecs []string) ([]Case, error) {
	var cases []Case
	seen := map[Case]bool{}
	for _, p := range payloads {
		key := Case{Model: p.Model, Count: p.Count}
		if seen[key] {
			continue
		}
		seen[key] = true
		for _, c := range codecs {
			name, z, err := codec.ParseName(c)
			if err != nil {
				return nil, fmt.Errorf("codecs: %w", err)
			}
			cases = append(cases, Case{Model: p.Model, Count: p.Count, Codec: name, Compress: z})
		}
	}
	return cases, nil
}
