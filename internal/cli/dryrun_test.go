package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/cli"
)

// A dry run of the thesis preset prints every case with its runs and the
// estimate, and starts nothing: no results directory, even with --out. How
// long it takes is logged, not asserted (a timed unit test fails on a busy
// machine; here it takes tens of milliseconds).
func TestADryRunPrintsTheMatrixAndStartsNothing(t *testing.T) {
	t.Chdir(t.TempDir())
	began := time.Now()
	out, stderr, err := run(t, "run", "--dry-run", "thesis", "--out", "mine")
	took := time.Since(began)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the thesis preset's dry run took %s", took)
	for _, want := range []string{
		"thesis: the cases as records name them",
		"   5  1s warm-up + 100 requests  response-time: rest chain:2 get user×5 closed:1 100 requests cache jvm\n",
		"   1  1s warm-up + 100 requests  nested-sizes: rest+proto+gzip chain:2 get payment×650 closed:1 100 requests jvm\n",
		"76 cases, 284 runs, about 9m0s",
		"Not counted: starting the brokers, each JVM node's boot and calibrating",
		"Nothing was started (--dry-run).",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the dry run does not print %q:\n%s", want, out)
		}
	}
	if stderr != "" {
		t.Errorf("stderr: %q", stderr)
	}
	for _, dir := range []string{"mine", "results"} {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("the dry run made %s", dir)
		}
	}
}

// A spec that times codecs counts their timing in its estimate.
func TestADryRunCountsTheCodecTiming(t *testing.T) {
	out, _, err := run(t, "run", "--dry-run", "ensor")
	if err != nil {
		t.Fatal(err)
	}
	// JMH's 3 cases × 2 benchmarks × 5 forks × 6 iterations of 1s, and
	// Go's 2 cases × 5 processes × 2 operations × 11 samples of 10ms.
	if !strings.Contains(out, "about 36m0s") || !strings.Contains(out, "Of which timing the codecs first: about 3m0s") {
		t.Errorf("ensor times codecs, and its dry run does not say how long:\n%s", out)
	}
}

// A scale is applied as in a real run.
func TestADryRunTakesTheScale(t *testing.T) {
	out, _, err := run(t, "run", "--dry-run", "thesis", "--scale", "quick")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "thesis at scale quick:") || !strings.Contains(out, "1s warm-up + 5 requests    flat-sizes: rest chain:2 get user×1 closed:1 5 requests\n") {
		t.Errorf("the quick scale's flat-sizes are not 5 requests:\n%s", out)
	}
}

// A spec that does not parse fails a dry run as it fails a run: the same
// usage error.
func TestADryRunRefusesABadSpecAsARunDoes(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(spec, []byte("stackz: [rest]\npayloads: [{model: text, counts: [10]}]\nloads: [{closed: {clients: 1}}]\n"), 0o644)
	_, _, dry := run(t, "run", "--dry-run", spec)
	_, _, real := run(t, "run", spec)
	if dry == nil || cli.ExitCode(dry) != 2 || !strings.Contains(dry.Error(), "stackz") {
		t.Fatalf("a dry run of a bad spec: %v", dry)
	}
	if real == nil || dry.Error() != real.Error() {
		t.Errorf("a dry run says %q, a run %q", dry, real)
	}
}

// A spec longer than an hour is checked, not refused: the dry run says a
// run needs --yes. Past its own max_duration it fails as a run does.
func TestADryRunSaysALongRunNeedsYes(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "long.yaml")
	os.WriteFile(spec, []byte("stacks: [rest]\npayloads: [{model: text, counts: [10]}]\nloads: [{closed: {clients: 1}}]\nduration: 2h\n"), 0o644)
	out, _, err := run(t, "run", "--dry-run", spec)
	if err != nil || !strings.Contains(out, "Without --yes hopbench run refuses it: this experiment takes about 2h0m0s") {
		t.Errorf("a 2-hour spec: %v\n%s", err, out)
	}
	os.WriteFile(spec, []byte("stacks: [rest]\npayloads: [{model: text, counts: [10]}]\nloads: [{closed: {clients: 1}}]\nduration: 40m\nmax_duration: 30m\n"), 0o644)
	if _, _, err := run(t, "run", "--dry-run", spec); err == nil || !strings.Contains(err.Error(), "more than its max_duration of 30m0s") || cli.ExitCode(err) != 2 {
		t.Errorf("past max_duration: %v", err)
	}
}
