package jvm_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/jvm"
)

// outsideCheckouts moves the test into dir, away from the hopbench
// checkout it runs in, and skips if the test binary itself sits in one
// (then Ensure would find that checkout and its build).
func outsideCheckouts(t *testing.T, dir string) {
	t.Helper()
	t.Setenv("HOPBENCH_JVM_NODE", "")
	t.Chdir(t.TempDir())
	if c, ok := jvm.Checkout(); ok {
		t.Skipf("the test binary is in a hopbench checkout, %s", c)
	}
	t.Chdir(dir)
}

// fakeCheckout is a hopbench checkout whose scripts/setup.sh is script
// (run in the checkout, as the real one runs), with the node's sources'
// pom.xml; the test runs in its jvm/node directory, below it.
func fakeCheckout(t *testing.T, script string) string {
	t.Helper()
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "scripts"), 0o755)
	os.MkdirAll(filepath.Join(root, "jvm", "node"), 0o755)
	os.WriteFile(filepath.Join(root, "jvm", "node", "pom.xml"), []byte("<project/>\n"), 0o644)
	if err := os.WriteFile(filepath.Join(root, "scripts", "setup.sh"), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	outsideCheckouts(t, filepath.Join(root, "jvm", "node"))
	return root
}

// buildsJar is a setup.sh that builds as the real one does, once: it
// counts its runs in builds.
const buildsJar = `[ "$1" = jvm ] || exit 2
echo "setup: building the JVM node (jvm/node) with Maven" >&2
echo built >>builds
mkdir -p .tools/jvm/node/quarkus-app && echo jar >.tools/jvm/node/quarkus-app/quarkus-run.jar
`

func TestEnsureBuildsTheNodeOnFirstUseOnly(t *testing.T) {
	root := fakeCheckout(t, buildsJar)
	var stderr bytes.Buffer
	jar, err := jvm.Ensure(context.Background(), &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, ".tools/jvm/node/quarkus-app/quarkus-run.jar"); jar != want {
		t.Errorf("jar %s, want %s", jar, want)
	}
	logPath := filepath.Join(root, ".tools/jvm/setup.log")
	for _, want := range []string{"building the JVM node (first use): scripts/setup.sh jvm ...", "log " + logPath, "built the JVM node in 0s: " + jar} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr.String())
		}
	}
	if log, _ := os.ReadFile(logPath); !strings.Contains(string(log), "setup: building the JVM node") {
		t.Errorf("the script's output is not in its log: %q", log)
	}
	stderr.Reset()
	if again, err := jvm.Ensure(context.Background(), &stderr); err != nil || again != jar || stderr.Len() > 0 {
		t.Errorf("second use: %s, %v, stderr %q; want the jar, found", again, err, stderr.String())
	}
	if builds, _ := os.ReadFile(filepath.Join(root, "builds")); string(builds) != "built\n" {
		t.Errorf("setup.sh ran %d times, want once", strings.Count(string(builds), "built"))
	}
}

// HOPBENCH_JVM_NODE is taken as given: a missing file is an error, not
// a build.
func TestEnsureTakesHOPBENCH_JVM_NODEAsGiven(t *testing.T) {
	root := fakeCheckout(t, buildsJar)
	t.Setenv("HOPBENCH_JVM_NODE", filepath.Join(root, "no.jar"))
	if _, err := jvm.Ensure(context.Background(), &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "HOPBENCH_JVM_NODE") {
		t.Errorf("got %v, want HOPBENCH_JVM_NODE's error", err)
	}
	if _, err := os.Stat(filepath.Join(root, "builds")); err == nil {
		t.Error("setup.sh ran")
	}
}

func TestEnsureOutsideACheckoutSaysWhereTheSourcesAre(t *testing.T) {
	outsideCheckouts(t, t.TempDir())
	_, err := jvm.Ensure(context.Background(), &bytes.Buffer{})
	for _, want := range []string{"is in a hopbench checkout", "jvm/node in the hopbench repository", "scripts/setup.sh jvm", "HOPBENCH_JVM_NODE"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want an error saying %q", err, want)
		}
	}
}

func TestEnsureSaysWhatNeedsRoot(t *testing.T) {
	root := fakeCheckout(t, `echo "setup: need root to install: openjdk-17-jdk-headless (run: sudo apt-get install openjdk-17-jdk-headless)" >&2; exit 1`)
	_, err := jvm.Ensure(context.Background(), &bytes.Buffer{})
	for _, want := range []string{"only root can install: openjdk-17-jdk-headless (run: sudo apt-get install openjdk-17-jdk-headless)", filepath.Join(root, ".tools/jvm/setup.log")} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want an error saying %q", err, want)
		}
	}
}

func TestEnsureShowsAFailedBuildsLog(t *testing.T) {
	root := fakeCheckout(t, `for i in $(seq 1 40); do echo "maven says $i"; done; echo "setup: building the JVM node failed (see Maven's output above)" >&2; exit 1`)
	_, err := jvm.Ensure(context.Background(), &bytes.Buffer{})
	if err == nil {
		t.Fatal("a failed build succeeded")
	}
	msg := err.Error()
	for _, want := range []string{"building the JVM node failed (scripts/setup.sh jvm: exit status 1)", filepath.Join(root, ".tools/jvm/setup.log"), "maven says 40", "setup: building the JVM node failed"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error does not say %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "maven says 20\n") {
		t.Errorf("the error holds more than the log's end:\n%s", msg)
	}
}

// Interrupting a build kills the script and what it started: nothing
// outlives it.
func TestEnsureInterruptedKillsTheWholeBuild(t *testing.T) {
	root := fakeCheckout(t, `sleep 300 & echo $! >maven.pid; echo $$ >script.pid; wait`)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := jvm.Ensure(ctx, &bytes.Buffer{}); done <- err }()
	var pids []int
	for deadline := time.Now().Add(10 * time.Second); len(pids) < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			cancel()
			t.Fatal("the fake build never started")
		}
		pids = pids[:0]
		for _, f := range []string{"maven.pid", "script.pid"} {
			if b, err := os.ReadFile(filepath.Join(root, f)); err == nil {
				if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
					pids = append(pids, pid)
				}
			}
		}
	}
	t.Cleanup(func() {
		for _, pid := range pids {
			if alive(pid) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want the interruption", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Ensure did not return after its context ended")
	}
	for _, pid := range pids {
		for deadline := time.Now().Add(5 * time.Second); alive(pid); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Errorf("process %d outlived the interrupted build", pid)
				break
			}
		}
	}
}

// alive says whether a process runs (a zombie, dead and not yet reaped by
// whoever adopted it, does not).
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, after, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(after, "Z")
}
