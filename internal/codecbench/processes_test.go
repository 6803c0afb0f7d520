package codecbench

import (
	"context"
	"os"
	"testing"
	"time"
)

// childEnv makes this test binary a codec-process child (TestMain).
const childEnv = "HOPBENCH_CODECBENCH_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		if err := ServeProcess(context.Background(), os.Stdin, os.Stdout); err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Codec timings spread over processes give one run a process: each
// process's median, the figure their median. (Counts only: how long
// anything takes is not asserted.)
func TestEachProcessIsOneRun(t *testing.T) {
	t.Setenv(childEnv, "1")
	cases := []Case{{Model: "user", Count: 2, Codec: "json", Compress: "none"}, {Model: "user", Count: 2, Codec: "proto", Compress: "none"}}
	opts := Options{Samples: 3, SampleTime: time.Millisecond, Budget: 20 * time.Millisecond}
	var seen []int
	got, err := RunProcesses(context.Background(), []string{os.Args[0]}, cases, opts, 3, func(p int) { seen = append(seen, p) })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(seen) != 3 {
		t.Fatalf("%d results after %v processes: want 2 cases from 3", len(got), seen)
	}
	for _, r := range got {
		for _, tm := range []Timing{r.Marshal, r.Unmarshal} {
			if len(tm.RunsNs) != 3 || tm.MinNs > tm.MedianNs || tm.MedianNs > tm.MaxNs || tm.Samples != 3*3 {
				t.Errorf("%s: runs %v, min %v median %v max %v, %d samples: want 3 runs of 3 samples", r.Codec, tm.RunsNs, tm.MinNs, tm.MedianNs, tm.MaxNs, tm.Samples)
			}
		}
	}
	if _, err := RunProcesses(context.Background(), []string{os.Args[0]}, cases, opts, 0, nil); err == nil {
		t.Error("0 processes taken")
	}
}
