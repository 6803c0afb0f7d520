// Package cli is hopbench's command line: one table of subcommands, each
// owning its flags, all testable through Run with injected output streams.
package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// commands is the one place subcommands are registered.
var commands = []func(*app) *cobra.Command{
	newVersionCommand,
	newCodecCommand,
	newCodecProcessCommand,
	newEvolveCommand,
	newNodeCommand,
	newLoadCommand,
	newRunCommand,
	newReportCommand,
	newCompareCommand,
	newAdviseCommand,
	newCalibrateCommand,
	newBrokersCommand,
	newBrokerProcessCommand,
	newAgentCommand,
	newHostsCommand,
}

// generatesLoad annotates the commands whose process is a load generator
// (it calls services and measures them, in itself or as an agent): see
// GeneratesLoad.
var generatesLoad = map[string]string{"role": "generator"}

// GeneratesLoad says whether the command args name (without the program
// name) generates load in its own process, so that the program can tune
// that process as an instrument: a node or a broker is what is measured,
// and keeps Go's defaults.
func GeneratesLoad(args []string) bool {
	c, _, err := Commands().Find(args)
	return err == nil && c.Annotations["role"] == generatesLoad["role"]
}

// app carries what every subcommand needs: the output streams.
type app struct {
	stdout, stderr io.Writer
}

// usageError marks errors in how hopbench was called (exit code 2).
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// ExitCode maps an error from Run to a process exit code: 2 for usage
// errors, 130 for an interrupt, 3 (ExitChecksFailed) when a threshold or
// a gate failed, 1 otherwise.
func ExitCode(err error) int {
	var u usageError
	var c checksFailed
	switch {
	case err == nil:
		return 0
	case errors.As(err, &u):
		return 2
	case errors.Is(err, context.Canceled):
		return 130
	case errors.As(err, &c):
		return ExitChecksFailed
	}
	return 1
}

// Run executes hopbench with args (without the program name).
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	root := newRoot(&app{stdout: stdout, stderr: stderr})
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err != nil && isCobraUsageError(err) {
		return usageError{err}
	}
	return err
}

// Commands is hopbench's command tree, built but not run (its output
// discarded), for tests that walk every command: cmd/hopbench runs every
// line of every command's examples.
func Commands() *cobra.Command {
	return newRoot(&app{stdout: io.Discard, stderr: io.Discard})
}

func newRoot(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "hopbench",
		Short: "Measure how microservices talk to each other",
		Long:  "hopbench runs real services over REST, gRPC, GraphQL and brokers with the same payloads and load, and measures what each choice costs.",
		Example: `  # the default comparison: every stack, a direct call and a chain, then its report
  hopbench run
  # a study hopbench reproduces, at its quick scale
  hopbench run rest-grpc --scale quick
  # check your own spec first: its cases, runs and estimated time, nothing started
  hopbench run --dry-run my.yaml
  # the report of a results directory: report.html, report.md, charts/
  hopbench report results/quick-20261122-210550
  # which stack fits your requirement, from the results you have
  hopbench advise --model payment --count 5 --rate 2000 --sla 20ms`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{suggestFlag(c, err)}
	})
	root.CompletionOptions.DisableDefaultCmd = true
	for _, newCommand := range commands {
		root.AddCommand(newCommand(a))
	}
	return root
}

// isCobraUsageError recognises cobra's own errors for unknown commands and
// argument counts, which it returns as plain errors.
func isCobraUsageError(err error) bool {
	var u usageError
	if errors.As(err, &u) {
		return false
	}
	msg := err.Error()
	for _, prefix := range []string{"unknown command", "accepts ", "requires at least", "requires at most", "unknown flag", "unknown shorthand"} {
		if strings.HasPrefix(msg, prefix) {
			return true
		}
	}
	return false
}

// suggestFlag adds the closest of c's flags to an unknown flag's error, as
// cobra does for a misspelled subcommand: `--rat` suggests --rate, and
// `-rate` (one dash) --rate. A name far from every flag gets no guess.
func suggestFlag(c *cobra.Command, err error) error {
	var unknown *pflag.NotExistError
	if !errors.As(err, &unknown) {
		return err
	}
	typed := unknown.GetSpecifiedName()
	if short := unknown.GetSpecifiedShortnames(); short != "" {
		typed = short // -rate: a long flag given one dash
	}
	names := flagNames(c)
	if slices.Contains(names, typed) {
		return fmt.Errorf("%w (did you mean --%s?)", err, typed)
	}
	best := closestFlags(typed, names)
	switch len(best) {
	case 0:
		return err
	case 1:
		return fmt.Errorf("%w (did you mean --%s?)", err, best[0])
	}
	last := len(best) - 1
	return fmt.Errorf("%w (did you mean --%s or --%s?)", err, strings.Join(best[:last], ", --"), best[last])
}

// flagNames are the long names of the flags c takes, its own and those it
// inherits, hidden ones left out.
func flagNames(c *cobra.Command) []string {
	var names []string
	add := func(f *pflag.Flag) {
		if !f.Hidden && !slices.Contains(names, f.Name) {
			names = append(names, f.Name)
		}
	}
	c.Flags().VisitAll(add)
	c.InheritedFlags().VisitAll(add)
	return names
}

// closestFlags are the names nearest to typed: those it begins (at least
// three letters of them) and is within two edits of, the nearest; else all
// it begins; else those within two edits, the nearest. Ties are all given.
func closestFlags(typed string, names []string) []string {
	type candidate struct {
		name       string
		tier, dist int
	}
	var all []candidate
	for _, n := range names {
		prefix, d := len(typed) >= 3 && strings.HasPrefix(n, typed), editDistance(typed, n)
		near := d <= min(2, len(typed)-1)
		switch {
		case prefix && near:
			all = append(all, candidate{n, 0, d})
		case prefix:
			all = append(all, candidate{n, 1, 0}) // every flag it begins is as likely
		case near:
			all = append(all, candidate{n, 2, d})
		}
	}
	order := func(a, b candidate) int { return cmp.Or(cmp.Compare(a.tier, b.tier), cmp.Compare(a.dist, b.dist)) }
	slices.SortFunc(all, func(a, b candidate) int { return cmp.Or(order(a, b), strings.Compare(a.name, b.name)) })
	var best []string
	for _, c := range all {
		if order(c, all[0]) == 0 {
			best = append(best, c.name)
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b: the fewest
// letters inserted, deleted or replaced to turn one into the other.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			replace := prev[j-1]
			if a[i-1] != b[j-1] {
				replace++
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, replace)
		}
		prev = cur
	}
	return prev[len(b)]
}
