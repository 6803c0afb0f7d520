package main_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A rate of 10^12 with the limit raised to it: SIGINT ends the run within
// 2 s, with its record, whether it comes in the window or in the second
// after it, where the requests never sent were counted one due time at a
// time, for minutes, deaf to the signal.
func TestAnInterruptEndsARunAtAnyRateWithItsRecord(t *testing.T) {
	spec := writeSpec(t, `
stacks: [rest]
payloads: [{model: text, counts: [10]}]
ops: [echo]
limits: {rate: 1e12}
loads: [{rate: {rate: 1e12}}]
duration: 2s
warmup: 0s
`)
	// Teardown after the load has returned: stopping the node (SIGTERM,
	// then its exit), the record, summary.md and report.html, and the
	// process's exit. On a busy machine that takes up to about a second.
	const teardown = time.Second
	for _, after := range []time.Duration{500 * time.Millisecond, 2500 * time.Millisecond} {
		t.Run("signal "+after.String()+" into the run", func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "results")
			cmd := startLoading(t, spec, out)
			time.Sleep(after)
			signalled := time.Now()
			cmd.Process.Signal(os.Interrupt)
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case err := <-exited:
				took := time.Since(signalled)
				t.Logf("exited %v after the signal: %v", took.Round(time.Millisecond), err)
				// Within 2 s and the teardown here; the test fails only
				// past a bound a busy machine cannot reach by lateness alone
				// (the old count was deaf to the signal for minutes).
				if took > 10*(2*time.Second+teardown) {
					t.Errorf("exited %v after SIGINT, want about 2s and %v of teardown", took, teardown)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("still running 30s after SIGINT")
			}
			recs := readRecords(t, out)
			if len(recs) != 1 || recs[0]["outcome"] != "interrupted" {
				t.Errorf("records %v, want one, interrupted", recs)
			}
		})
	}
}

// startLoading starts hopbench run of spec into out and returns once its
// one run's node is up, when the load starts; the process is killed when
// the test ends.
func startLoading(t *testing.T, spec, out string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, "run", spec, "--out", out, "--no-calibrate")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	started := make(chan struct{})
	go func() {
		lines := bufio.NewScanner(stderr)
		for lines.Scan() {
			if strings.HasPrefix(lines.Text(), "[1/1] ") {
				close(started)
				break
			}
		}
		for lines.Scan() {
		}
	}()
	select {
	case <-started:
	case <-time.After(60 * time.Second):
		t.Fatal("the run did not start within 60s")
	}
	// The run has begun when its node is up; the load starts then.
	deadline := time.Now().Add(30 * time.Second)
	for len(processesOf(cmd.Process.Pid)) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	return cmd
}
