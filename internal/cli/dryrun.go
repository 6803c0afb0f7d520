package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hopbench/hopbench/internal/codectiming"
	"github.com/hopbench/hopbench/internal/experiment"
	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/threshold"
)

// dryRun checks spec as hopbench run would before starting anything
// (its runs' cases, the run's length, the hosts' flags) and prints its
// matrix: each case with its runs, then the runs and the estimated time.
// It starts nothing and writes no results directory.
func dryRun(w io.Writer, spec *experiment.Spec, f runFlags) error {
	runs := spec.Runs()
	if _, err := experiment.Cases(runs); err != nil {
		return usageError{err}
	}
	if _, err := agentAuth(spec, f); err != nil {
		return err
	}
	rules, err := thresholdRules(spec, runs, f.checks)
	if err != nil {
		return err
	}
	estimate := estimateOf(spec, runs)
	long := checkLength(spec, estimate, f.yes)
	if long != nil && spec.MaxDuration > 0 {
		return usageError{long}
	}
	cases := printCases(w, spec)
	fmt.Fprintf(w, "\n%d cases, %d runs, about %s\n", cases, len(runs), roughly(estimate))
	fmt.Fprintf(w, "  by each run's warm-up and measured time (a capacity search's budget) and %s to start and stop its nodes;\n", experiment.RunOverhead)
	fmt.Fprintln(w, "  a run ended by a request count adds only its warm-up, so the estimate is then a floor.")
	if codecs := spec.CodecEstimate(runs); codecs > 0 {
		fmt.Fprintf(w, "  Of which timing the codecs first: about %s (each case as a fast operation is timed in Go, %d processes;\n", roughly(codecs), codectiming.Processes)
		fmt.Fprintln(w, "  on the JVM, JMH's iterations without its forks' start-up).")
	}
	fmt.Fprintln(w, "  Not counted: starting the brokers, each JVM node's boot and calibrating the machine's floor")
	fmt.Fprintln(w, "  (seconds; --no-calibrate skips it).")
	if needsJVM(spec, runs) {
		jvmBuild(w)
	}
	printRules(w, rules)
	if long != nil {
		fmt.Fprintf(w, "Without --yes hopbench run refuses it: %v.\n", long)
	}
	fmt.Fprintln(w, "Nothing was started (--dry-run).")
	return nil
}

// printCases writes one line for each case of spec, in the order the
// spec lists them (a real run shuffles them within each repetition),
// with its number of runs and what each measures, and returns how many
// cases there are.
func printCases(w io.Writer, spec *experiment.Spec) int {
	listed := *spec
	listed.Order = experiment.OrderListed
	var names []string
	counts := map[string]int{}
	each := map[string]string{}
	for _, r := range listed.Runs() {
		c := r.Case()
		if counts[c] == 0 {
			names = append(names, c)
			each[c] = measures(r)
		}
		counts[c]++
	}
	title := spec.Name
	if spec.Scale() != "" {
		title += " at scale " + spec.Scale()
	}
	fmt.Fprintf(w, "%s: the cases as records name them\n\n", title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "runs\teach run\tcase\n")
	for _, c := range names {
		fmt.Fprintf(tw, "%4d\t%s\t%s\n", counts[c], each[c], c)
	}
	tw.Flush()
	return len(names)
}

// measures says what one run of a case takes: its warm-up, then its
// measured time or request count.
func measures(r experiment.Run) string {
	var b strings.Builder
	if r.Warmup > 0 {
		fmt.Fprintf(&b, "%s warm-up + ", time.Duration(r.Warmup))
	}
	if r.Requests > 0 {
		fmt.Fprintf(&b, "%d requests", r.Requests)
	} else {
		fmt.Fprintf(&b, "%s", time.Duration(r.Duration))
	}
	return b.String()
}

// jvmBuild says what hopbench run does for a spec that needs the JVM
// node when it is not built: builds it here, or fails (outside a
// checkout).
func jvmBuild(w io.Writer) {
	if _, err := jvm.Jar(); !errors.Is(err, jvm.ErrNotBuilt) {
		return
	}
	if _, ok := jvm.Checkout(); ok {
		fmt.Fprintln(w, "The JVM node is not built here: hopbench run builds it first (scripts/setup.sh jvm; minutes the first time).")
		return
	}
	fmt.Fprintf(w, "The JVM node is not built, and this hopbench runs outside a hopbench checkout, so hopbench run cannot build it: its sources are %s; build it there, or set HOPBENCH_JVM_NODE to its quarkus-run.jar.\n", jvm.Sources)
}

// printRules lists the thresholds a run would judge, each with the cases
// it selects.
func printRules(w io.Writer, rules threshold.Rules) {
	for _, r := range rules {
		var limits []string
		for _, l := range r.Limits {
			limits = append(limits, l.String())
		}
		on := "every case"
		if len(r.Stacks) > 0 || len(r.Topologies) > 0 {
			on = "the cases of " + strings.Join(append(slices.Clone(r.Stacks), r.Topologies...), ", ")
		}
		fmt.Fprintf(w, "Thresholds (%s) on %s: %s; one failed exits %d.\n", r.Where, on, strings.Join(limits, ", "), ExitChecksFailed)
	}
}
