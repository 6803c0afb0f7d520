package cpuset_test

import (
	"bufio"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/cpuset"
)

func TestParseReadsListsAndRanges(t *testing.T) {
	for list, want := range map[string]cpuset.Set{
		"0":     {0},
		"0,0":   {0},
		" 0 ":   {0},
		"0-0,0": {0},
	} {
		got, err := cpuset.Parse(list)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("Parse(%q) = %v, %v; want %v", list, got, err, want)
		}
	}
	online, err := cpuset.Online()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := cpuset.Parse(online.String()); err != nil || !slices.Equal(got, online) {
		t.Errorf("Parse(%q) = %v, %v; want every CPU", online, got, err)
	}
}

func TestParseRefusesWhatIsNotACPUOfThisMachine(t *testing.T) {
	for list, want := range map[string]string{
		"":       "no CPUs",
		"x":      `"x" is not a CPU number`,
		"1,,2":   `"" is not a CPU number`,
		"-1":     `"-1" is not a CPU number`,
		"3-1":    `"3-1" is not a CPU number`,
		"100000": "CPU 100000 is not a CPU of this machine",
	} {
		if _, err := cpuset.Parse(list); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q): error %v, want one saying %q", list, err, want)
		}
	}
}

func TestStringIsWhatParseReads(t *testing.T) {
	if got := (cpuset.Set{1, 2, 3}).String(); got != "1,2,3" {
		t.Errorf("String = %q, want 1,2,3", got)
	}
}

// pinnedChild is set in the child process the pinning test starts: it
// pins itself to the CPUs named, says so, and waits to be looked at.
const pinnedChild = "HOPBENCH_CPUSET_TEST_CHILD"

func TestMain(m *testing.M) {
	if list := os.Getenv(pinnedChild); list != "" {
		s, err := cpuset.Parse(list)
		if err == nil {
			err = cpuset.PinProcess(s)
		}
		if err != nil {
			os.Stdout.WriteString("error: " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("pinned\n")
		os.Stdin.Read(make([]byte, 1)) // until the test closes stdin
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The test pins a child rather than itself: a test binary pinned to one
// CPU would run every later test there.
func TestPinProcessPinsEveryThread(t *testing.T) {
	online, err := cpuset.Online()
	if err != nil {
		t.Fatal(err)
	}
	want := cpuset.Set{online[len(online)-1]} // not CPU 0 alone, where one is given
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), pinnedChild+"="+want.String())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if line != "pinned\n" {
		t.Fatalf("child: %q", line)
	}
	tasks, err := os.ReadDir("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/task")
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) < 2 {
		t.Errorf("the child has %d threads: the test checks too little", len(tasks))
	}
	for _, task := range tasks {
		tid, err := strconv.Atoi(task.Name())
		if err != nil {
			t.Fatal(err)
		}
		got, err := cpuset.Allowed(tid) // /proc/TID is the thread's own
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("thread %s may run on CPUs %s, want %s", task.Name(), got, want)
		}
	}
}

func TestPinProcessRefusesNoCPUs(t *testing.T) {
	if err := cpuset.PinProcess(nil); err == nil {
		t.Error("pinned to no CPUs")
	}
}
