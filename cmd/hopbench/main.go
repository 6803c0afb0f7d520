// Command hopbench measures how microservices talk to each other.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/hopbench/hopbench/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "hopbench:", message(ctx, err))
		os.Exit(cli.ExitCode(err))
	}
}

// message is err as the user reads it: an interrupt is said as one, not as
// the context error it travels as (what was measured before it is kept
// and was said by the command).
func message(ctx context.Context, err error) string {
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return "interrupted"
	}
	return err.Error()
}
