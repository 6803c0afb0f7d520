package main_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/reference"
)

// Every study's preset runs end to end, its parts and brokers included,
// and its report carries a paper-vs-here row for every finding of the
// study. The preset is cut down to seconds: each payload at its smallest
// count, each case a fraction of a second, ramps and rates small. The
// quick scale itself is run in EXPERIMENTS.md, its results committed.
func TestEveryStudyPresetRunsEndToEndWithItsPaperVsHereTable(t *testing.T) {
	t.Setenv("HOPBENCH_HOME", t.TempDir()) // the brokers' data, gone after
	for _, name := range []string{"ensor", "thesis", "rest-grpc", "five-tech"} {
		t.Run(name, func(t *testing.T) {
			switch {
			case testing.Short() && name == "five-tech":
				t.Skip("its broker stacks need RabbitMQ and Kafka (Java): make test runs it")
			case testing.Short() && name != "ensor":
				// ensor, a few seconds, takes -short through the same path;
				// thesis and rest-grpc take a minute between them.
				t.Skip("a minute's runs under -short: make test runs it")
			}
			data, err := os.ReadFile(filepath.Join("..", "..", "presets", name+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			stdout, code := hopbench(t, "run", writeSpec(t, smoke(t, data)), "--out", out, "--no-calibrate")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stdout)
			}
			// The terminal's last words are the ranked verdict, then where
			// the report is.
			if i := strings.LastIndex(stdout, "What this run says."); i < 0 || !strings.Contains(stdout[i:], "(p50, lower is better): 1. ") || !strings.Contains(stdout[i:], "\nreport: ") {
				t.Errorf("stdout does not end with the ranked verdict and the report's path:\n%s", stdout)
			}
			for _, r := range readRecords(t, out) {
				if o := r["outcome"]; o != "ok" && o != "errors" {
					t.Errorf("%s: %s (%v)", r["case"], o, r["reason"])
				}
				if r["study"] != name || r["part"] == "" && name != "ensor" {
					t.Errorf("%s: study %v part %v", r["case"], r["study"], r["part"])
				}
			}
			md, err := os.ReadFile(filepath.Join(out, "report.md"))
			if err != nil {
				t.Fatal(err)
			}
			study, err := reference.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			table := string(md[strings.Index(string(md), "## Paper vs here"):])
			for _, f := range study.Findings {
				if !strings.Contains(table, "\n| "+f.ID+" | ") {
					t.Errorf("report has no paper-vs-here row for %s", f.ID)
				}
			}
		})
	}
}

// smoke cuts a preset down to a few seconds a part, each case made once.
func smoke(t *testing.T, data []byte) string {
	var spec map[string]any
	if err := yaml.Unmarshal(data, &spec); err != nil {
		t.Fatal(err)
	}
	delete(spec, "scales")
	// The JVM's runs and JMH timings need the JVM node's build, which
	// -short does not ask for; make test builds it and keeps them.
	if _, err := jvm.Jar(); testing.Short() || err != nil && os.Getenv("HOPBENCH_REQUIRE_JVM") == "" {
		delete(spec, "runtimes")
	}
	// JMH at its shortest where the preset times codecs on the JVM: two
	// forks (two runs a side), one iteration of 100ms each, which still go
	// through every step of the JVM's timing.
	if rts, _ := spec["runtimes"].([]any); slices.Contains(rts, any("jvm")) && spec["codecs"] != nil {
		spec["jmh"] = map[string]any{"forks": 2, "warmup_iterations": 1, "iterations": 1, "iteration_time": "100ms"}
	}
	shrink := func(m map[string]any) {
		for _, k := range []string{"duration", "warmup", "requests", "repetitions"} {
			delete(m, k)
		}
		if ps, ok := m["payloads"].([]any); ok {
			for _, p := range ps {
				p := p.(map[string]any)
				counts := p["counts"].([]any)
				p["counts"] = []any{slices.MinFunc(counts, func(a, b any) int { return a.(int) - b.(int) })}
			}
		}
		if ls, ok := m["loads"].([]any); ok {
			for i, l := range ls {
				switch l := l.(map[string]any); {
				case l["ramp"] != nil:
					ls[i] = map[string]any{"ramp": map[string]any{"of": "clients", "from": 1, "to": 2, "step": 1, "every": "1s"}}
					m["duration"] = "2s" // every step
				case l["rate"] != nil:
					ls[i] = map[string]any{"rate": map[string]any{"rate": 20}}
				}
			}
		}
	}
	shrink(spec)
	parts, _ := spec["parts"].([]any)
	for i, p := range parts {
		shrink(p.(map[string]any))
		// The JVM's nodes boot for every case they serve: its first part
		// takes the preset's JVM path end to end, the others run on Go
		// (the runtimes' own tests measure both side by side).
		if rts, _ := spec["runtimes"].([]any); i > 0 && slices.Contains(rts, any("jvm")) {
			p.(map[string]any)["runtimes"] = []any{"go"}
		}
	}
	spec["duration"], spec["warmup"] = "500ms", "400ms"
	out, err := yaml.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
