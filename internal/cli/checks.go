package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/hopbench/hopbench/internal/check"
	"github.com/hopbench/hopbench/internal/experiment"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/threshold"
)

// ExitChecksFailed is the exit code of a command whose checks failed: a
// threshold of run or load, or compare's gate (--fail-on).
const ExitChecksFailed = 3

// checksFailed marks that error (ExitChecksFailed).
type checksFailed struct{ error }

func (e checksFailed) Unwrap() error { return e.error }

// ThresholdsFile, in a results directory, is hopbench run's thresholds
// as judged: a JSON list of checks.
const ThresholdsFile = "thresholds.json"

// checkFlags are the flags of a command that checks figures: thresholds
// (run, load) and where the JUnit report goes.
type checkFlags struct {
	thresholds []string
	junit      string
}

func (c *checkFlags) addThresholds(fl *pflag.FlagSet) {
	fl.StringArrayVar(&c.thresholds, "threshold", nil, "a limit on every case's figure, `KEY<LIMIT` such as 'p99<10ms' or 'errors<0.1%' (repeatable; keys and units: docs/thresholds.md); one failed exits 3")
}

func (c *checkFlags) addJUnit(fl *pflag.FlagSet, of string) {
	fl.StringVar(&c.junit, "junit", "", "also write "+of+" as JUnit XML to `FILE`, for CI's test reports (docs/ci.md)")
}

// rules are the --threshold flags as rules on every case, after the
// spec's (nil for none).
func (c *checkFlags) rules(spec threshold.Rules) (threshold.Rules, error) {
	rules := spec
	if len(c.thresholds) > 0 {
		flags := threshold.Rule{Where: "--threshold"}
		for _, t := range c.thresholds {
			l, err := threshold.ParseFlag(t)
			if err != nil {
				return nil, usageError{err}
			}
			flags.Limits = append(flags.Limits, l)
		}
		rules = append(rules[:len(rules):len(rules)], flags)
	}
	if c.junit != "" && len(rules) == 0 {
		return nil, usageError{errors.New("--junit writes the thresholds' checks, and there are none: give --threshold, or thresholds: in the spec")}
	}
	return rules, nil
}

// runSubjects are the cases of an experiment's runs as thresholds see
// them before they run.
func runSubjects(runs []experiment.Run) []threshold.Subject {
	subjects := make([]threshold.Subject, len(runs))
	for i, r := range runs {
		subjects[i] = threshold.Subject{Stack: r.Stack, Topology: r.Topology, Capacity: r.Load.Capacity != nil, Nodes: true}
	}
	return subjects
}

// judge holds recs to rules and tells what came of it: the checks'
// table on stdout, JUnit XML where --junit says; a failed check is a
// checksFailed error.
func (a *app) judge(rules threshold.Rules, recs []results.Record, junit string) ([]check.Check, error) {
	if len(rules) == 0 {
		return nil, nil
	}
	checks := threshold.Judge(rules, recs)
	return checks, a.tell("thresholds", checks, junit)
}

// tell prints checks under title, then settles them.
func (a *app) tell(title string, checks []check.Check, junit string) error {
	fmt.Fprintln(a.stdout)
	if err := check.Table(a.stdout, title, checks); err != nil {
		return err
	}
	return settle(title, checks, junit)
}

// settle writes checks as JUnit XML to junit (if set) and says whether
// any failed: a checksFailed error.
func settle(title string, checks []check.Check, junit string) error {
	if junit != "" {
		err := results.WriteFileAtomic(junit, func(w io.Writer) error { return check.WriteJUnit(w, "hopbench "+title, checks) })
		if err != nil {
			return fmt.Errorf("--junit: %w", err)
		}
	}
	if check.Failed(checks) {
		return checksFailed{fmt.Errorf("%s failed: %s", title, check.Count(checks))}
	}
	return nil
}

// writeChecks keeps an experiment's judged thresholds beside its results.
func writeChecks(dir string, checks []check.Check) error {
	return results.WriteFileAtomic(filepath.Join(dir, ThresholdsFile), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(checks)
	})
}
