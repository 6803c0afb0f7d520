package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/jvm"
)

// needJVM skips a test that starts JVM nodes under -short or without Java
// or the node's build (unless HOPBENCH_REQUIRE_JVM is set: make test).
func needJVM(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a JVM")
	}
	_, errJar := jvm.Jar()
	_, errJava := exec.LookPath("java")
	for _, err := range []error{errJar, errJava} {
		if err != nil {
			if os.Getenv("HOPBENCH_REQUIRE_JVM") != "" {
				t.Fatal(err)
			}
			t.Skip(err)
		}
	}
}

// privateTemp gives hopbench a temp folder and a cache directory of the
// test's own, so that nobody else's files count; it returns the
// environment and the temp folder.
func privateTemp(t *testing.T) (env []string, tmp, cache string) {
	t.Helper()
	tmp, cache = t.TempDir(), t.TempDir()
	return append(os.Environ(), "TMPDIR="+tmp, "XDG_CACHE_HOME="+cache), tmp, cache
}

// jvmLeftovers lists what looks like hopbench's JVM seeds in dir.
func jvmLeftovers(t *testing.T, dir string) []string {
	t.Helper()
	var found []string
	for _, pattern := range []string{"hopbench-*jvm*", ".jvm-seeds*", "*seeds*.bin"} {
		m, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			t.Fatal(err)
		}
		found = append(found, m...)
	}
	return found
}

// A lone hopbench node --runtime jvm becomes the JVM and cannot remove
// its seeds file when it ends: it keeps it in the user's cache directory
// (hopbench/jvm-seeds, named by what it holds), never in the system's temp
// folder, and removes the files of that directory no node wrote for a day.
func TestALoneJVMNodeLeavesNothingInTheTempFolder(t *testing.T) {
	needJVM(t)
	env, tmp, cache := privateTemp(t)
	seedsDir := filepath.Join(cache, "hopbench", "jvm-seeds")
	if err := os.MkdirAll(seedsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	stale, fresh := filepath.Join(seedsDir, "stale.bin"), filepath.Join(seedsDir, "fresh.bin")
	for _, f := range []string{stale, fresh} {
		if err := os.WriteFile(f, []byte("seeds"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	twoDaysAgo := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(stale, twoDaysAgo, twoDaysAgo); err != nil {
		t.Fatal(err)
	}

	cmd, _ := startAnnounced(t, env, "node", "--runtime", "jvm", "--stack", "rest", "--gets", "text:10")
	written, _ := filepath.Glob(filepath.Join(seedsDir, "*.bin"))
	if len(written) != 2 || fileExists(stale) || !fileExists(fresh) {
		t.Errorf("the seeds cache holds %v: want the node's file and fresh.bin, stale.bin (two days old) removed", written)
	}
	if found := jvmLeftovers(t, tmp); len(found) > 0 {
		t.Errorf("while the node runs, the temp folder holds %v", found)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the JVM node did not end within 30 s of SIGTERM")
	}
	if found := jvmLeftovers(t, tmp); len(found) > 0 {
		t.Errorf("after the node ended, the temp folder holds %v", found)
	}
}

const jvmRun = `
stacks: [rest]
runtimes: [jvm]
ops: [get]
payloads: [{model: text, counts: [10]}]
loads: [{closed: {clients: 1}}]
duration: %s
warmup: 0s
`

// An experiment with JVM nodes keeps their seeds under its results
// directory while it runs and removes them when it ends, finished or
// stopped by SIGTERM; nothing goes to the system's temp folder.
func TestAJVMRunLeavesNoSeedsBehind(t *testing.T) {
	needJVM(t)
	for _, c := range []struct {
		name     string
		duration string
		term     bool
	}{{"finished", "1s", false}, {"SIGTERM", "60s", true}} {
		t.Run(c.name, func(t *testing.T) {
			env, tmp, _ := privateTemp(t)
			out := filepath.Join(t.TempDir(), "results")
			cmd := exec.Command(bin, "run", writeSpec(t, strings.Replace(jvmRun, "%s", c.duration, 1)), "--out", out, "--no-calibrate")
			cmd.Env = env
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			sawSeeds := false
			for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline) && !sawSeeds; time.Sleep(20 * time.Millisecond) {
				seeds, _ := filepath.Glob(filepath.Join(out, ".jvm-seeds*", "*.bin"))
				sawSeeds = len(seeds) > 0
				if found := jvmLeftovers(t, tmp); len(found) > 0 {
					t.Errorf("while the run runs, the temp folder holds %v", found)
				}
				select {
				case err := <-done:
					done <- err
					deadline = time.Time{}
				default:
				}
			}
			if !sawSeeds && c.term {
				t.Fatalf("no seeds under %s while the run ran; stderr: %s", out, stderr.String())
			}
			if c.term {
				// Once its node serves, so that the run is under way.
				for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline) && len(processesOf(cmd.Process.Pid)) == 0; {
					time.Sleep(50 * time.Millisecond)
				}
				time.Sleep(2 * time.Second)
				cmd.Process.Signal(syscall.SIGTERM)
			}
			select {
			case err := <-done:
				if err != nil && !c.term {
					t.Fatalf("run: %v; stderr: %s", err, stderr.String())
				}
			case <-time.After(120 * time.Second):
				t.Fatal("the run did not end")
			}
			if left := jvmLeftovers(t, out); len(left) > 0 {
				t.Errorf("after the run, its results directory holds %v", left)
			}
			if found := jvmLeftovers(t, tmp); len(found) > 0 {
				t.Errorf("after the run, the temp folder holds %v", found)
			}
		})
	}
}

// The spec: 22 000 000 ints encode to about 190 MB of JSON, which
// a size estimated from the first 64 values put under the 64 MiB a body
// may have. Validation refuses it now, naming the count and the limit.
func TestAnIntsCountOverTheBodyLimitFailsValidation(t *testing.T) {
	spec := writeSpec(t, `
stacks: [rest]
payloads: [{model: ints, counts: [22000000]}]
loads: [{closed: {clients: 1}}]
duration: 1s
`)
	stderr, code := hopbenchStderr(t, "run", "--dry-run", spec, "--out", filepath.Join(t.TempDir(), "results"))
	if code == 0 || !strings.Contains(stderr, "payloads[0].counts[0]") || !strings.Contains(stderr, "67108864") {
		t.Errorf("exit %d, stderr %q: want refused at payloads[0].counts[0], naming the limit of 67108864 bytes", code, stderr)
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
