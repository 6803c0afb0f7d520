package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/check/checktest"
)

// gatedSpec is a tiny experiment held to thresholds its runs meet: rest
// on a direct call, four runs of half a second (four, so that each
// threshold is judged on its median's interval).
const gatedSpec = `
name: gated
stacks: [rest]
payloads: [{model: text, counts: [10]}]
loads: [{closed: {clients: 1}}]
warmup: 200ms
duration: 500ms
repetitions: 4
thresholds: {errors: "< 50%", p99: "< 5s"}
`

// figureAndInterval is a latency and its interval as the table shows
// them: 197µs  [176µs, 246µs].
var figureAndInterval = regexp.MustCompile(`\d+(\.\d+)?(µs|ms)\s+\[\d+(\.\d+)?(µs|ms), \d+(\.\d+)?(µs|ms)\]`)

// A spec whose thresholds its stack meets exits 0; the same with an
// impossible threshold added exits 3, and names the threshold, its
// figure and its interval; its JUnit file is valid by the Jenkins schema.
func TestRunExitsThreeWhenAThresholdFails(t *testing.T) {
	if testing.Short() {
		t.Skip("starts nodes: two experiments of four half-second runs")
	}
	spec := writeSpec(t, gatedSpec)
	met := filepath.Join(t.TempDir(), "met")
	stdout, code := hopbench(t, "run", spec, "--out", met, "--no-calibrate")
	if code != 0 || !strings.Contains(stdout, "thresholds: 2 passed, 0 failed, 0 undecided") {
		t.Fatalf("exit %d, want 0 with both thresholds passed:\n%s", code, stdout)
	}
	var kept []map[string]any
	if data, err := os.ReadFile(filepath.Join(met, "thresholds.json")); err != nil || json.Unmarshal(data, &kept) != nil || len(kept) != 2 || kept[0]["outcome"] != "pass" {
		t.Errorf("thresholds.json: %v %v", kept, err)
	}
	failed := filepath.Join(t.TempDir(), "failed")
	junit := filepath.Join(failed, "thresholds.xml")
	stdout, code = hopbench(t, "run", spec, "--out", failed, "--no-calibrate", "--threshold", "p50<1us", "--junit", junit)
	if code != 3 {
		t.Fatalf("exit %d, want 3 (a threshold failed):\n%s", code, stdout)
	}
	_, table, _ := strings.Cut(stdout, "thresholds: 2 passed, 1 failed, 0 undecided")
	var row string
	for _, l := range strings.Split(table, "\n") {
		if strings.Contains(l, "p50 < 1us") {
			row = l
		}
	}
	if !strings.HasPrefix(row, "FAIL ") || !strings.Contains(row, "rest direct echo text×10 closed:1") || !figureAndInterval.MatchString(row) ||
		!strings.Contains(row, "the 95% interval of the median of 4 runs is past the limit") {
		t.Errorf("the failed threshold's row %q: want FAIL, its case, its figure and interval, and why, in:\n%s", row, stdout)
	}
	checktest.ValidJUnit(t, junit)
}

// hopbench load holds its one run to --threshold: exit 3 when one fails,
// the checks in its JSON, and a threshold on a figure a load does not
// record (the node's CPU) refused before it starts, exit 2.
func TestLoadExitsThreeWhenAThresholdFails(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a node and loads it")
	}
	addr := startNode(t, "--stack", "rest")
	load := []string{"load", "--stack", "rest", "--target", addr, "--clients", "1", "--duration", "300ms"}
	junit := filepath.Join(t.TempDir(), "load.xml")
	stdout, code := hopbench(t, append(load, "--threshold", "errors<1%", "--threshold", "p50<1us", "--junit", junit)...)
	if code != 3 || !strings.Contains(stdout, "thresholds: 1 passed, 1 failed, 0 undecided") || !strings.Contains(stdout, "the one run is past the limit") {
		t.Fatalf("exit %d, want 3 with errors passed and p50 failed:\n%s", code, stdout)
	}
	checktest.ValidJUnit(t, junit)
	stdout, code = hopbench(t, append(load, "--format", "json", "--threshold", "p99 < 10s")...)
	var out struct {
		Checks []struct{ Name, Outcome string } `json:"checks"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); code != 0 || err != nil || len(out.Checks) != 1 || out.Checks[0].Name != "p99 < 10s" || out.Checks[0].Outcome != "pass" {
		t.Errorf("exit %d, %v: %+v, want p99 < 10s passed in the JSON:\n%s", code, err, out, stdout)
	}
	stderr, code := hopbenchStderr(t, append(load, "--threshold", "cpu<1ms")...)
	if code != 2 || !strings.Contains(stderr, "hopbench load does not measure the node") {
		t.Errorf("exit %d, want 2 refusing the node's CPU on a load: %s", code, stderr)
	}
}

// compare --fail-on: a set 30 % slower (compare's testdata/slower.jsonl:
// recorded runs made slower by arithmetic, as testdata/same.yaml says),
// five runs a side, fails the gate; two runs of one build pass it.
func TestCompareFailOnExitsThreeOnASignificantRegression(t *testing.T) {
	data := filepath.Join("..", "..", "internal", "compare", "testdata")
	junit := filepath.Join(t.TempDir(), "gate.xml")
	stdout, code := hopbench(t, "compare", filepath.Join(data, "a5.jsonl"), filepath.Join(data, "slower.jsonl"), "--fail-on", "p50:+10%", "--junit", junit)
	if code != 3 || !strings.Contains(stdout, "FAIL ") || !strings.Contains(stdout, "past +10%") {
		t.Errorf("30 %% slower: exit %d, want 3 naming the change past +10%%:\n%s", code, stdout)
	}
	stdout, code = hopbench(t, "compare", filepath.Join(data, "a.jsonl"), filepath.Join(data, "b.jsonl"), "--fail-on", "p50:+10%")
	if code != 0 || !strings.Contains(stdout, "gate: 2 passed, 0 failed, 0 undecided") {
		t.Errorf("one build twice: exit %d, want 0 with both checks passed:\n%s", code, stdout)
	}
	checktest.ValidJUnit(t, junit)
}
