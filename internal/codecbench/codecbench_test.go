package codecbench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/codecbench"
)

// fast keeps the timing short: the tests check the harness, not the codecs.
var fast = codecbench.Options{SampleTime: time.Millisecond, Samples: 3, Budget: 20 * time.Millisecond}

func TestMatrixOrderAndDefaults(t *testing.T) {
	cases, err := codecbench.Matrix([]string{"text", "recipe"}, nil, []string{"json", "proto"}, []string{"none", "gzip"})
	if err != nil {
		t.Fatal(err)
	}
	// text has 4 study sizes, recipe 1: 5 payloads x 2 codecs x 2 compressions.
	if len(cases) != 20 {
		t.Fatalf("%d cases, want 20", len(cases))
	}
	first, last := cases[0], cases[len(cases)-1]
	if first != (codecbench.Case{Model: "text", Count: 10, Codec: "json", Compress: "none"}) ||
		last != (codecbench.Case{Model: "recipe", Count: 1, Codec: "proto", Compress: "gzip"}) {
		t.Errorf("first %+v, last %+v", first, last)
	}
}

func TestMatrixRefusesBadNamesBeforeRunning(t *testing.T) {
	for _, c := range []struct {
		models, codecs, compress []string
		counts                   []int
		want                     string
	}{
		{[]string{"users"}, []string{"json"}, []string{"none"}, nil, `unknown payload model "users"`},
		{[]string{"user"}, []string{"protobuf"}, []string{"none"}, nil, `unknown codec "protobuf" (known: json, json-fast, proto`},
		{[]string{"user"}, []string{"json"}, []string{"lz4"}, nil, `unknown compression "lz4"`},
		{[]string{"int"}, []string{"json"}, []string{"none"}, []int{5}, "count 5 is above its maximum of 1"},
	} {
		_, err := codecbench.Matrix(c.models, c.counts, c.codecs, c.compress)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Matrix(%v, %v, %v, %v) = %v, want %q", c.models, c.counts, c.codecs, c.compress, err, c.want)
		}
	}
}

func TestRunMeasuresEveryCase(t *testing.T) {
	cases, _ := codecbench.Matrix([]string{"text"}, []int{5000}, []string{"json", "proto"}, []string{"none", "gzip"})
	seen := 0
	results, err := codecbench.Run(context.Background(), cases, fast, func(i int, r codecbench.Result) {
		if i != seen || r.Case != cases[i] {
			t.Errorf("progress %d for %+v", i, r.Case)
		}
		seen++
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != len(cases) || seen != len(cases) {
		t.Fatalf("%d results, %d progress calls for %d cases", len(results), seen, len(cases))
	}
	for _, r := range results {
		if r.Bytes < 5000 || r.Marshal.MedianNs <= 0 || r.Unmarshal.MedianNs <= 0 {
			t.Errorf("%+v: implausible figures", r)
		}
		for _, tm := range []codecbench.Timing{r.Marshal, r.Unmarshal} {
			if !(tm.MinNs <= tm.MedianNs && tm.MedianNs <= tm.MaxNs) || tm.Samples < 3 || tm.OpsPerSample < 1 {
				t.Errorf("%+v: timing %+v out of order", r.Case, tm)
			}
		}
		if r.Compress == "none" && r.CompressedBytes != r.Bytes {
			t.Errorf("%+v: uncompressed wire bytes %d != bytes %d", r.Case, r.CompressedBytes, r.Bytes)
		}
		if r.Compress == "gzip" && r.CompressedBytes >= r.Bytes/2 {
			t.Errorf("%+v: lorem text gzipped only to %d of %d bytes", r.Case, r.CompressedBytes, r.Bytes)
		}
	}
}

func TestRunStopsWhenCancelledAndKeepsWhatItMeasured(t *testing.T) {
	cases, _ := codecbench.Matrix([]string{"text"}, []int{100}, []string{"json", "proto", "avro"}, []string{"none"})
	ctx, cancel := context.WithCancel(context.Background())
	results, err := codecbench.Run(ctx, cases, fast, func(i int, _ codecbench.Result) {
		if i == 0 {
			cancel()
		}
	})
	if err != context.Canceled || len(results) != 1 {
		t.Fatalf("got %d results and %v; want 1 and context.Canceled", len(results), err)
	}
}

func TestFormatsCarryTheRequiredKeys(t *testing.T) {
	cases, _ := codecbench.Matrix([]string{"recipe"}, nil, []string{"json", "proto"}, []string{"none"})
	results, err := codecbench.Run(context.Background(), cases, fast, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := codecbench.WriteFormat(&buf, "json", results); err != nil {
		t.Fatal(err)
	}
	var records []map[string]any
	if err := json.Unmarshal(buf.Bytes(), &records); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"model", "count", "codec", "compress", "bytes", "marshal_ns", "unmarshal_ns", "marshal_allocs", "unmarshal_allocs"} {
		if _, ok := records[0][key]; !ok {
			t.Errorf("json record lacks %q", key)
		}
	}
	buf.Reset()
	if err := codecbench.WriteFormat(&buf, "csv", results); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(buf.String()), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[0], "model,count,codec,compress,bytes") {
		t.Errorf("csv:\n%s", buf.String())
	}
	buf.Reset()
	if err := codecbench.WriteFormat(&buf, "table", results); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "SIZE/JSON") || !strings.Contains(buf.String(), "1.00") {
		t.Errorf("table lacks the size-vs-json column:\n%s", buf.String())
	}
	if err := codecbench.WriteFormat(&buf, "xml", results); err == nil {
		t.Error("format xml accepted")
	}
}

func TestHumanUnits(t *testing.T) {
	for _, c := range []struct {
		ns   float64
		want string
	}{{850, "850ns"}, {1500, "1.5µs"}, {2.5e6, "2.5ms"}, {3e9, "3.00s"}} {
		if got := codecbench.HumanNs(c.ns); got != c.want {
			t.Errorf("HumanNs(%v) = %q, want %q", c.ns, got, c.want)
		}
	}
	if got := codecbench.HumanBytes(789); got != "789B" {
		t.Errorf("HumanBytes(789) = %q", got)
	}
}
