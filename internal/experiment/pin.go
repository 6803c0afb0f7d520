package experiment

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// pinning places the generator and the nodes on CPUs. On a small machine
// the scheduler dominates a loopback round trip, so a result records how
// its processes were placed.
type pinning struct {
	mode      string
	generator []int // CPUs of this process while a run is measured
	nodes     []int
	all       []int
}

func newPinning(mode string) (*pinning, error) {
	n := runtime.NumCPU()
	p := &pinning{mode: mode}
	for c := range n {
		p.all = append(p.all, c)
	}
	switch mode {
	case "none":
		return p, nil
	case "split":
		if n < 2 {
			return nil, fmt.Errorf("pin: split needs at least 2 CPUs; this machine has %d (use same or none)", n)
		}
		p.generator, p.nodes = []int{0}, p.all[1:]
	case "same":
		p.generator, p.nodes = []int{0}, []int{0}
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		return nil, fmt.Errorf("pin: %s needs taskset (util-linux): %w", mode, err)
	}
	return p, nil
}

// String is what a result records, e.g. "split: generator on CPU 0, nodes on CPUs 1".
func (p *pinning) String() string {
	if p.mode == "none" {
		return "none"
	}
	return fmt.Sprintf("%s: generator on CPUs %s, nodes on CPUs %s", p.mode, cpuList(p.generator), cpuList(p.nodes))
}

// prefix is the command that starts a node on its CPUs.
func (p *pinning) prefix() []string {
	if p.mode == "none" {
		return nil
	}
	return []string{"taskset", "-c", cpuList(p.nodes)}
}

// pinGenerator moves every thread of this process to the generator's CPUs
// (threads started later inherit it); the returned func undoes it.
func (p *pinning) pinGenerator() (undo func(), err error) {
	if p.mode == "none" {
		return func() {}, nil
	}
	if err := setThreads(p.generator); err != nil {
		return func() {}, err
	}
	return func() { setThreads(p.all) }, nil
}

func setThreads(cpus []int) error {
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return fmt.Errorf("pin: %w", err)
	}
	for _, t := range tasks {
		tid, _ := strconv.Atoi(t.Name())
		if err := unix.SchedSetaffinity(tid, &set); err != nil && err != unix.ESRCH {
			return fmt.Errorf("pin: thread %d: %w", tid, err)
		}
	}
	return nil
}

func cpuList(cpus []int) string {
	s := make([]string, len(cpus))
	for i, c := range cpus {
		s[i] = strconv.Itoa(c)
	}
	return strings.Join(s, ",")
}
