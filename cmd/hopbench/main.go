// Command hopbench measures how microservices talk to each other.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"syscall"

	"github.com/hopbench/hopbench/internal/cli"
)

// generatorGOGC is the garbage collector's target in a process that
// generates load, unless GOGC is set. The generator holds little (about
// 4 MB live at 64 clients), so at Go's default of 100 it collected 374
// times in 8 s, 7 % of its CPU; at 400, in five rounds alternating with
// 100 against one gRPC node, it spent 10-25 % less CPU a request, and it
// peaked at 84 MiB instead of 67 at 3 000 req/s with 256 workers
// (bench/memory.sh, docs/load.md). On a shared machine the generator's CPU is taken from
// the service measured. Every record says which target its generator ran
// at (environment.gc_percent); nodes and brokers keep Go's default.
const generatorGOGC = 400

func main() {
	if _, set := os.LookupEnv("GOGC"); !set && cli.GeneratesLoad(os.Args[1:]) {
		debug.SetGCPercent(generatorGOGC)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	stopProfile := profile(os.Getenv("HOPBENCH_CPUPROFILE"))
	err := cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stopProfile()
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "hopbench:", message(ctx, err))
		os.Exit(cli.ExitCode(err))
	}
}

// profile writes this process's CPU profile to file until the returned
// function is called, when file is set (HOPBENCH_CPUPROFILE): how
// bench/PROFILE.md finds where the node and the generator spend their time.
func profile(file string) func() {
	if file == "" {
		return func() {}
	}
	f, err := os.Create(file)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hopbench: HOPBENCH_CPUPROFILE:", err)
		os.Exit(2)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
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
