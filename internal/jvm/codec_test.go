package jvm

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/userschema"
)

// JMH's results (testdata/jmh.json, as JMH 1.37 wrote them with -prof gc)
// are read as the median of the measured iterations, their min and max,
// and the bytes allocated per operation.
func TestJMHResultsAreReadAsTimings(t *testing.T) {
	b, err := os.ReadFile("testdata/jmh.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseJMH(b)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := got["jsonMarshal"]
	if !ok || got["jsonUnmarshal"].Samples != 2 {
		t.Fatalf("timings %+v, want jsonMarshal and jsonUnmarshal of 2 iterations each", got)
	}
	if m.Samples != 2 || m.MinNs > m.MedianNs || m.MedianNs > m.MaxNs || m.MinNs <= 0 || m.BytesPerOp <= 0 || !m.NoAllocs {
		t.Errorf("jsonMarshal %+v: want 2 samples, min ≤ median ≤ max, allocated bytes, no allocation count", m)
	}
	if _, err := parseJMH([]byte(strings.Replace(string(b), "gc.alloc.rate.norm", "gc.other", -1))); err == nil || !strings.Contains(err.Error(), "gc.alloc.rate.norm") {
		t.Errorf("without allocated bytes: %v, want an error naming them", err)
	}
}

// needJMH skips a test that runs JMH under -short, or without the JVM
// node's build unless HOPBENCH_REQUIRE_JVM is set (make test sets it).
func needJMH(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs JMH")
	}
	if _, err := Jar(); err != nil {
		if os.Getenv("HOPBENCH_REQUIRE_JVM") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

// Timing recipe on the JVM gives Jackson's and protobuf-java's times and
// bytes, and Ensor's conversion row, stated with how JMH ran.
func TestTheJVMsCodecsAreTimedWithJMH(t *testing.T) {
	needJMH(t)
	o := CodecOptions{Forks: 1, WarmupIterations: 1, Iterations: 2, Iteration: 100 * time.Millisecond, Seed: 1}
	rs, err := TimeCodecs(context.Background(), Cases([]Get{{Model: "recipe", Count: 1}}, CodecCodecs), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	var codecs []string
	for _, r := range rs {
		codecs = append(codecs, r.Codec)
		if r.Runtime != JVM || r.Method != o.Method() || r.Bytes <= 0 || r.Marshal.MedianNs <= 0 || r.Unmarshal.MedianNs <= 0 || r.Marshal.Samples != 2 {
			t.Errorf("%+v", r)
		}
	}
	if strings.Join(codecs, " ") != "json proto proto+convert" {
		t.Errorf("codecs %v, want json proto proto+convert", codecs)
	}
	if rs[0].Bytes <= rs[1].Bytes {
		t.Errorf("recipe×1: JSON %d bytes, Protobuf %d: want JSON larger", rs[0].Bytes, rs[1].Bytes)
	}
}

// A user's message is timed on the JVM too, built in each fork from its
// descriptor set: JsonFormat and protobuf-java's DynamicMessage, the
// Protobuf bytes those of Go's encoding of the same message.
func TestTheJVMTimesAUsersMessage(t *testing.T) {
	needJMH(t)
	dir := filepath.Join("..", "..", "examples", "proto")
	m, err := userschema.Use(context.Background(), userschema.Source{Files: []string{filepath.Join(dir, "shop", "orders.proto")}, ImportPaths: []string{dir}, Message: "shop.Order"})
	if err != nil {
		t.Fatal(err)
	}
	o := CodecOptions{Forks: 1, WarmupIterations: 1, Iterations: 2, Iteration: 100 * time.Millisecond, Seed: 1}
	rs, err := TimeCodecs(context.Background(), Cases([]Get{{Model: m.Name, Count: 3}}, CodecCodecs), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := m.Message(3, 1)
	want := proto.Size(msg)
	if len(rs) != 2 || rs[0].Codec != "json" || rs[1].Codec != "proto" || rs[1].Bytes != want || rs[0].Bytes <= want {
		t.Fatalf("%+v: want json and proto timed, proto's %d bytes as Go's, JSON's more", rs, want)
	}
	for _, r := range rs {
		if r.Marshal.MedianNs <= 0 || r.Unmarshal.MedianNs <= 0 || r.Marshal.Samples != 2 {
			t.Errorf("%+v", r)
		}
	}
}

// Ensor's conversion is timed for his model alone, and only the codecs
// asked are.
func TestTheJVMTimesTheCodecsAskedAndEnsorsConversionForRecipeAlone(t *testing.T) {
	var got []string
	for _, c := range Cases([]Get{{Model: "recipe", Count: 1}, {Model: "user", Count: 5}}, CodecCodecs) {
		got = append(got, fmt.Sprintf("%s×%d %s", c.Model, c.Count, c.Codec))
	}
	if want := "recipe×1 json,recipe×1 proto,recipe×1 proto+convert,user×5 json,user×5 proto"; strings.Join(got, ",") != want {
		t.Errorf("cases %v, want %s", got, want)
	}
	if cs := Cases([]Get{{Model: "user", Count: 5}}, []string{"json"}); len(cs) != 1 || cs[0].Codec != "json" || cs[0].Runtime != JVM {
		t.Errorf("json alone: %+v", cs)
	}
}

// Each JMH fork is one independent run: its mean over its iterations. A
// result of five forks of two iterations (JMH's rawData is [fork][iteration])
// gives five runs, not ten samples of one run.
func TestEachJMHForkIsOneRun(t *testing.T) {
	b, err := os.ReadFile("testdata/jmh.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc []map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	forks := [][]float64{{100, 110}, {200, 220}, {300, 330}, {400, 440}, {500, 550}}
	for _, r := range doc {
		r["primaryMetric"].(map[string]any)["rawData"] = forks
	}
	b, _ = json.Marshal(doc)
	got, err := parseJMH(b)
	if err != nil {
		t.Fatal(err)
	}
	m := got["jsonMarshal"]
	if !slices.Equal(m.RunsNs, []float64{105, 210, 315, 420, 525}) || m.Samples != 10 {
		t.Errorf("runs %v of %d samples: want the five forks' means", m.RunsNs, m.Samples)
	}
}

// A JMH run that finds another holding JMH's lock waits and runs again;
// any other failure, or a lock held past the bound, is an error at once.
func TestAJMHRunWaitsForAnotherToFinish(t *testing.T) {
	locked := fmt.Errorf("java org.openjdk.jmh.Main: exit status 1: ERROR: Unable to acquire the JMH lock (/tmp/jmh.lock), exiting")
	tries := 0
	err := waitingForJMHLock(context.Background(), func() error {
		if tries++; tries < 2 {
			return locked
		}
		return nil
	})
	if err != nil || tries != 2 {
		t.Fatalf("err %v after %d tries, want success on the second", err, tries)
	}
	tries = 0
	other := fmt.Errorf("exit status 1: no such benchmark")
	if err := waitingForJMHLock(context.Background(), func() error { tries++; return other }); err != other || tries != 1 {
		t.Errorf("other failure: %v after %d tries, want it at once", err, tries)
	}
	defer func(w time.Duration) { jmhLockWait = w }(jmhLockWait)
	jmhLockWait = 0
	if err := waitingForJMHLock(context.Background(), func() error { return locked }); err == nil || !strings.Contains(err.Error(), "let it finish") {
		t.Errorf("lock held past the bound: %v, want an error saying so", err)
	}
}
