package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hopbench/hopbench/internal/compare"
	"github.com/hopbench/hopbench/internal/results"
)

// compareHelp is hopbench compare's long help.
var compareHelp = `Compare two sets of results (each a results directory or results.jsonl). Runs
are matched by configuration (stack, topology, op, payload, load, runtime,
options); a setting with one value in A and another in B, such as the stack
when A ran rest and B ran grpc, or the runtime when A ran on go and B on the
jvm, is what is compared and is left out of matching.

For each figure (req/s, p50, p99, client CPU per request; and for feeds,
feed:N, messages/s and the time to the first message at p50, a feed's
req/s and latency running to its last message) compare shows each
set's median over repetitions with its 95% confidence interval, and the
change from A to B, or ~ when a Mann–Whitney U test finds no significant
difference, as benchstat does. A difference can only be shown with enough
repetitions: at least 4 in each set at alpha 0.05 (repetitions: in the spec).

--format benchfmt writes the results of any number of sets in Go benchmark
format instead, one line per repetition, for benchstat and its -col, -row
and -filter options; a feed's line adds first-p50-ns, first-p99-ns and
msg/s.

Runs whose figures a flag withholds (more than ` + fmt.Sprintf("%g %%", 100*results.MaxFailedShare) + ` of their calls failed
or went unsent: "partly failed") are left out of both, each named under
"left out".

--fail-on makes compare a regression gate: for each metric it names
(rps, msgs, p50, p99, first_p50, client_cpu) and each configuration
compared, a change from A to B that is significant and past its
tolerance fails, and compare exits 3. +10% fails a rise of more than
10 %, -5% a fall of more than 5 %. A significant change within the
tolerance, or none, passes; fewer than 4 runs a side cannot show one and
read undecided, which does not fail. --junit writes the gate's checks as
JUnit XML (docs/ci.md).`

func newCompareCommand(a *app) *cobra.Command {
	var format, failOn string
	var alpha float64
	var checks checkFlags
	cmd := &cobra.Command{
		Use:   "compare A B | compare --format benchfmt RESULTS...",
		Short: "Compare two sets of results: deltas with confidence intervals and significance",
		Long:  compareHelp,
		Example: `  hopbench compare results/before results/after
  hopbench compare results/before results/after --fail-on p50:+10%,rps:-5% --junit gate.xml
  hopbench compare --format benchfmt results/before > before.txt
  benchstat -col /stack before.txt`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch format {
			case "benchfmt":
				if failOn != "" || checks.junit != "" {
					return usageError{errors.New("--fail-on and --junit gate two sets in a table: give --format table (the default), not benchfmt")}
				}
				recs, _, err := readResults(a, args)
				if err != nil {
					return err
				}
				leftOut, err := compare.Benchfmt(a.stdout, recs)
				for _, l := range leftOut {
					fmt.Fprintf(a.stderr, "left out: %s\n", l)
				}
				return err
			case "table":
			default:
				return usageError{fmt.Errorf("--format %q: want table or benchfmt", format)}
			}
			if len(args) != 2 {
				return usageError{fmt.Errorf("compare takes two sets of results, A and B (got %d); --format benchfmt takes any number", len(args))}
			}
			if alpha <= 0 || alpha >= 1 {
				return usageError{fmt.Errorf("--alpha %v: want a significance level between 0 and 1, such as 0.05", alpha)}
			}
			return compareTable(a, args, alpha, failOn, checks.junit)
		},
	}
	cmd.Flags().StringVar(&format, "format", "table", "table, or benchfmt (Go benchmark format, for benchstat)")
	cmd.Flags().Float64Var(&alpha, "alpha", 0.05, "significance level of the test")
	cmd.Flags().StringVar(&failOn, "fail-on", "", "a regression gate: `METRIC:±N%,...` such as p50:+10%,rps:-5%; a significant change past one exits 3")
	checks.addJUnit(cmd.Flags(), "the gate's checks")
	return cmd
}

// compareTable compares two sets of results, A and B, as a table, and
// with a gate (failOn) holds each change to its tolerance.
func compareTable(a *app, args []string, alpha float64, failOn, junit string) error {
	var tols []compare.Tolerance
	if failOn != "" {
		var err error
		if tols, err = compare.ParseFailOn(failOn); err != nil {
			return usageError{err}
		}
	} else if junit != "" {
		return usageError{errors.New("--junit writes the gate's checks: give --fail-on")}
	}
	recsA, _, err := readResults(a, args[:1])
	if err != nil {
		return err
	}
	recsB, _, err := readResults(a, args[1:])
	if err != nil {
		return err
	}
	res := compare.Compare(recsA, recsB, alpha)
	if err := res.Write(a.stdout, args[0], args[1]); err != nil || len(tols) == 0 {
		return err
	}
	checks, err := res.Gate(tols)
	if err != nil {
		return usageError{err}
	}
	return a.tell("gate", checks, junit)
}
