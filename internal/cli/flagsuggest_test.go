package cli_test

import (
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/cli"
)

// An unknown flag is a usage error (exit 2) that names the closest flag the
// command takes, as cobra names the closest subcommand; a name far from
// every flag gets no guess.
func TestAnUnknownFlagSuggestsTheClosest(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"load", "--rat", "100"}, "unknown flag: --rat (did you mean --rate?)"},
		{[]string{"run", "--scal", "quick"}, "unknown flag: --scal (did you mean --scale?)"},
		{[]string{"node", "--stak", "grpc"}, "unknown flag: --stak (did you mean --stack?)"},
		{[]string{"advise", "--sal", "20ms"}, "(did you mean --sla?)"},
		{[]string{"codec", "--modle", "user"}, "(did you mean --model?)"},
		{[]string{"report", "--ot", "x", "results"}, "(did you mean --out?)"},
		{[]string{"brokers", "status", "--formt", "json"}, "(did you mean --format?)"},
		{[]string{"hosts", "up", "--hlp"}, "(did you mean --help?)"},    // cobra's own flag
		{[]string{"load", "--cap"}, "(did you mean --capacity?)"},       // a prefix beats a nearer but shorter name (--ca)
		{[]string{"load", "--dur", "1s"}, "(did you mean --duration?)"}, // a prefix
		{[]string{"load", "--max"}, "(did you mean --max-clients, --max-errors or --max-rate?)"},
		{[]string{"load", "-rate", "5"}, "unknown shorthand flag: 'r' in -rate (did you mean --rate?)"},
	} {
		_, _, err := run(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) || cli.ExitCode(err) != 2 {
			t.Errorf("%v: %v (exit %d), want %q and exit 2", c.args, err, cli.ExitCode(err), c.want)
		}
	}
	for _, args := range [][]string{
		{"load", "--zzzzz"},
		{"run", "--quantum"},
		{"load", "-x"},
	} {
		_, _, err := run(t, args...)
		if err == nil || strings.Contains(err.Error(), "did you mean") || cli.ExitCode(err) != 2 {
			t.Errorf("%v: %v (exit %d), want no suggestion and exit 2", args, err, cli.ExitCode(err))
		}
	}
}
