package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/cpuset"
	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/nodeapi"
	"github.com/hopbench/hopbench/internal/nodeapi/nodetest"
)

// onlyGo is an environment whose PATH holds the go command's directory
// alone: no taskset, no util-linux.
func onlyGo(t *testing.T) []string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + filepath.Dir(gobin)}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	return env
}

// startAnnounced starts hopbench with args and the contract's flags, and
// returns the process once it has written its ready line; it is killed
// when the test ends.
func startAnnounced(t *testing.T, env []string, args ...string) (*exec.Cmd, nodeapi.Ready) {
	t.Helper()
	contract := nodeapi.Config{Announce: true, Listen: "127.0.0.1:0", Admin: "127.0.0.1:0"}.Args()
	return nodetest.StartEnv(t, env, slices.Concat([]string{bin}, args, contract)...)
}

// lastCPU is the set of this machine's last CPU: on a machine of more
// than one, not the set a process has anyway.
func lastCPU(t *testing.T) cpuset.Set {
	t.Helper()
	online, err := cpuset.Online()
	if err != nil {
		t.Fatal(err)
	}
	return cpuset.Set{online[len(online)-1]}
}

// checkPinned fails the test unless every thread of process pid may run
// on the CPUs of want alone.
func checkPinned(t *testing.T, pid int, want cpuset.Set) {
	t.Helper()
	tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		tid, _ := strconv.Atoi(task.Name())
		got, err := cpuset.Allowed(tid)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("thread %d of node %d may run on CPUs %s, want %s", tid, pid, got, want)
		}
	}
	if len(tasks) < 2 {
		t.Errorf("node %d has %d threads: too few to show every thread is pinned", pid, len(tasks))
	}
}

// hopbench node --cpus pins every thread of the node, itself, with no
// taskset on PATH.
func TestNodePinsItselfToItsCPUs(t *testing.T) {
	want := lastCPU(t)
	cmd, _ := startAnnounced(t, onlyGo(t), "node", "--stack", "rest", "--cpus", want.String())
	checkPinned(t, cmd.Process.Pid, want)
}

// hopbench node --runtime jvm --cpus pins itself before it becomes the
// JVM, so every JVM thread inherits the CPUs; it serves a seeds file
// written beforehand, with the JVM flags it was given.
func TestJVMNodePinsItselfAndTakesSeedsAndJVMFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a JVM")
	}
	if _, err := jvm.Jar(); err != nil {
		t.Skip(err)
	}
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip(err)
	}
	seeds := filepath.Join(t.TempDir(), "seeds.bin")
	if err := jvm.WriteSeeds(seeds, []jvm.Get{{Model: "user", Count: 1}}, 1); err != nil {
		t.Fatal(err)
	}
	want := lastCPU(t)
	cmd, _ := startAnnounced(t, os.Environ(), "node", "--runtime", "jvm", "--stack", "rest", "--cpus", want.String(), "--seeds", seeds,
		"--jvm-flag", "-XX:+DisplayVMOutputToStderr", "--jvm-flag", "-Xmx96m")
	checkPinned(t, cmd.Process.Pid, want)
	argv, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Split(string(argv), "\x00")
	if !slices.Contains(args, "-Xmx96m") || !slices.Contains(args, seeds) || slices.Index(args, "-Xmx96m") > slices.Index(args, "-jar") {
		t.Errorf("the JVM node's command line %q lacks the JVM flag before -jar or the seeds file", args)
	}
}

func TestNodeRefusesBadCPUsSeedsAndJVMFlags(t *testing.T) {
	seeds := filepath.Join(t.TempDir(), "seeds.bin")
	if err := os.WriteFile(seeds, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--cpus", "100000"}, []string{"--cpus: CPU 100000 is not a CPU of this machine"}},
		{[]string{"--cpus", "one"}, []string{"--cpus", `"one" is not a CPU number`}},
		{[]string{"--runtime", "jvm", "--cpus", "1,x"}, []string{"--cpus", `"x" is not a CPU number`}},
		{[]string{"--runtime", "jvm", "--seeds", seeds, "--gets", "user:1"}, []string{"--seeds and --gets", "one or the other"}},
		{[]string{"--runtime", "jvm", "--seeds", seeds, "--seed", "7"}, []string{"--seeds and --seed"}},
		{[]string{"--runtime", "jvm", "--seeds", filepath.Join(t.TempDir(), "none.bin")}, []string{"--seeds", "no such file"}},
		{[]string{"--seeds", seeds}, []string{"--seeds is for --runtime jvm"}},
		{[]string{"--jvm-flag", "-Xmx1g"}, []string{"--jvm-flag is for --runtime jvm"}},
	} {
		args := append([]string{"node", "--stack", "rest"}, c.args...)
		stderr, code := hopbenchStderr(t, args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage): %s", args, code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr %q lacks %q", args, stderr, w)
			}
		}
	}
}
