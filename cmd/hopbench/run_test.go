package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func writeSpec(t *testing.T, spec string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readRecords(t *testing.T, dir string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var r map[string]any
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		recs = append(recs, r)
	}
	return recs
}

// processesOf lists the live processes whose environment carries
// HOPBENCH_PARENT=pid: the nodes an orchestrator with that pid started.
func processesOf(pid int) []int {
	marker := []byte(fmt.Sprintf("HOPBENCH_PARENT=%d\x00", pid))
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var found []int
	for _, d := range dirs {
		env, err := os.ReadFile(d + "/environ")
		if err == nil && bytes.Contains(env, marker) {
			var p int
			fmt.Sscanf(filepath.Base(d), "%d", &p)
			found = append(found, p)
		}
	}
	return found
}

func TestRunRecordsEveryRunWithNodeFigures(t *testing.T) {
	spec := writeSpec(t, `
name: e2e
stacks: [rest, grpc]
payloads: [{model: payment, counts: [5]}]
topologies: [direct, chain:2]
loads: [{closed: {clients: 2}}]
duration: 400ms
warmup: 100ms
memory: 256MiB
pin: split
`)
	out := filepath.Join(t.TempDir(), "results")
	stdout, code := hopbench(t, "run", spec, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stdout)
	}
	recs := readRecords(t, out)
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4", len(recs))
	}
	for _, r := range recs {
		for _, k := range []string{"stack", "topology", "op", "model", "count", "load", "requests", "errors", "rps", "p50_us", "p99_us", "outcome", "environment", "config", "histogram", "calibration", "pinning"} {
			if _, ok := r[k]; !ok {
				t.Errorf("record has no %q", k)
			}
		}
		if r["outcome"] != "ok" || r["requests"].(float64) < 10 || !strings.HasPrefix(r["pinning"].(string), "split") {
			t.Errorf("record %v %v: outcome %v, %v requests, pinning %v", r["stack"], r["topology"], r["outcome"], r["requests"], r["pinning"])
		}
		nodes := r["nodes"].([]any)
		if want := map[string]int{"direct": 1, "chain:2": 2}[r["topology"].(string)]; len(nodes) != want {
			t.Errorf("%d nodes for %v", len(nodes), r["topology"])
		}
		for _, n := range nodes {
			n := n.(map[string]any)
			if n["boot_ms"].(float64) <= 0 || n["peak_rss_bytes"].(float64) <= 0 || n["stats"] == nil {
				t.Errorf("node figures missing: %v", n)
			}
		}
	}
	for _, f := range []string{"summary.md", "summary.csv", "spec.yaml", "report.html", "report.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	if !strings.Contains(stdout, "| grpc | chain:2 | echo | payment×5 | closed:2 |  | 1 |") {
		t.Errorf("summary table missing a row:\n%s", stdout)
	}
}

// A node killed by its memory limit is an outcome of its run; the
// experiment goes on to the next run.
func TestOutOfMemoryIsAnOutcomeNotACrash(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("memory limits need root")
	}
	spec := writeSpec(t, `
stacks: [rest]
payloads: [{model: user, counts: [300000, 1]}]
ops: [get]
loads: [{closed: {clients: 1}}]
duration: 2s
warmup: 0s
memory: 48MiB
`)
	out := filepath.Join(t.TempDir(), "results")
	stdout, code := hopbench(t, "run", spec, "--out", out, "--no-calibrate")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stdout)
	}
	recs := readRecords(t, out)
	if len(recs) != 2 || recs[0]["outcome"] != "out of memory" || recs[1]["outcome"] != "ok" {
		for _, r := range recs {
			t.Logf("%v: %v %v", r["count"], r["outcome"], r["reason"])
		}
		t.Fatalf("want the 300 000-user run out of memory and the next one ok")
	}
}

func startRun(t *testing.T, spec string) (*exec.Cmd, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "results")
	cmd := exec.Command(bin, "run", writeSpec(t, spec), "--out", out, "--no-calibrate")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if data, _ := os.ReadFile(filepath.Join(out, "results.jsonl")); bytes.Count(data, []byte("\n")) >= 1 && len(processesOf(cmd.Process.Pid)) > 0 {
			return cmd, out
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the first run did not finish within 60s")
	return nil, ""
}

const threeRuns = `
stacks: [rest, grpc, graphql]
payloads: [{model: text, counts: [10]}]
topologies: [chain:3]
loads: [{closed: {clients: 1}}]
duration: 1s
warmup: 0s
`

// Ctrl-C keeps every finished run, records the one it stopped as
// interrupted, writes the summaries and leaves no node behind.
func TestInterruptKeepsFinishedRunsAndLeavesNoProcess(t *testing.T) {
	t.Parallel()
	cmd, out := startRun(t, threeRuns)
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Errorf("exit: %v, want 130", err)
	}
	recs := readRecords(t, out)
	if len(recs) < 1 || recs[0]["outcome"] != "ok" {
		t.Fatalf("finished run not kept: %v", recs)
	}
	// startRun returns once the second run's nodes exist: that run, a
	// second long, is the one the interrupt stops, whichever step it is in.
	if len(recs) != 2 || recs[1]["outcome"] != "interrupted" {
		t.Errorf("records %v: want the finished run and the stopped one, interrupted", recs)
	}
	if _, err := os.Stat(filepath.Join(out, "summary.md")); err != nil {
		t.Error(err)
	}
	if left := processesOf(cmd.Process.Pid); len(left) > 0 {
		t.Errorf("node processes left behind: %v", left)
	}
}

// Even an orchestrator killed outright takes its nodes with it.
func TestKilledOrchestratorLeavesNoProcess(t *testing.T) {
	t.Parallel()
	cmd, _ := startRun(t, threeRuns)
	pid := cmd.Process.Pid
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for len(processesOf(pid)) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if left := processesOf(pid); len(left) > 0 {
		t.Errorf("node processes outlived a killed orchestrator: %v", left)
	}
}

func TestRunRefusesABadSpecWithItsPath(t *testing.T) {
	spec := writeSpec(t, "stacks: [rest]\npayloads: [{model: text, counts: [1]}]\nloads: [{closed: {clients: 1}}]\npin: cpu0\n")
	stderr, code := hopbenchStderr(t, "run", spec)
	if code != 2 || !strings.Contains(stderr, "spec: pin") || !strings.Contains(stderr, "none, split") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if stderr, code := hopbenchStderr(t, "run", "no-such-preset"); code != 2 || !strings.Contains(stderr, "presets: ") || !strings.Contains(stderr, "quick") {
		t.Errorf("unknown preset: exit %d: %s", code, stderr)
	}
}
