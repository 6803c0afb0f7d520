package cli_test

import (
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/cli"
)

// A dry run lists the thresholds a run would judge, the spec's and the
// flags'; thresholds no case records, and --junit with no threshold,
// are refused before anything runs (exit 2).
func TestThresholdsAreCheckedBeforeAnythingRuns(t *testing.T) {
	out, _, err := run(t, "run", "--dry-run", "gate", "--threshold", "p99<20ms", "--threshold", "client_cpu < 1ms")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Thresholds (thresholds) on every case: errors < 0.1%; one failed exits 3.",
		"Thresholds (--threshold) on every case: p99 < 20ms, client_cpu < 1ms; one failed exits 3.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the dry run does not list %q:\n%s", want, out)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--threshold", "capacity>5000"}, "--threshold: capacity > 5000: none of the cases it applies to records it: only a capacity search"},
		{[]string{"--threshold", "p99 10ms"}, "want a key, a comparison and a limit"},
		{[]string{"--threshold", "p99<10"}, `column 7: want a unit of time`},
		{[]string{"--junit", "x.xml", "thesis"}, "--junit writes the thresholds' checks, and there are none"},
	} {
		args := append([]string{"run", "--dry-run", "gate"}, c.args...)
		if c.args[0] == "--junit" {
			args = append([]string{"run", "--dry-run"}, c.args...)
		}
		_, _, err := run(t, args...)
		if err == nil || cli.ExitCode(err) != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v (exit %d); want a usage error saying %q", c.args, err, cli.ExitCode(err), c.want)
		}
	}
}
