// Package cli is hopbench's command line: one table of subcommands, each
// owning its flags, all testable through Run with injected output streams.
package cli

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// commands is the one place subcommands are registered.
var commands = []func(*app) *cobra.Command{
	newVersionCommand,
	newCodecCommand,
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

// app carries what every subcommand needs: the output streams.
type app struct {
	stdout, stderr io.Writer
}

// usageError marks errors in how hopbench was called (exit code 2).
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// ExitCode maps an error from Run to a process exit code: 2 for usage
// errors, 130 for an interrupt, 1 otherwise.
func ExitCode(err error) int {
	var u usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &u):
		return 2
	case errors.Is(err, context.Canceled):
		return 130
	}
	return 1
}

// Run executes hopbench with args (without the program name).
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a := &app{stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:           "hopbench",
		Short:         "Measure how microservices talk to each other",
		Long:          "hopbench runs real services over REST, gRPC, GraphQL and brokers with the same payloads and load, and measures what each choice costs.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{err}
	})
	root.CompletionOptions.DisableDefaultCmd = true
	for _, newCommand := range commands {
		root.AddCommand(newCommand(a))
	}
	err := root.ExecuteContext(ctx)
	if err != nil && isCobraUsageError(err) {
		return usageError{err}
	}
	return err
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
