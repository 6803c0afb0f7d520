// Package cpuset places a process on CPUs: it reads a list of CPUs such as
// "1,2,3" and pins every thread of this process to them, so a node or a
// generator runs where the experiment put it without an external taskset.
package cpuset

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Set is a set of CPU numbers, ascending and without repeats.
type Set []int

// String is the set as Parse reads it and taskset -c takes it, e.g. "1,2,3".
func (s Set) String() string {
	parts := make([]string, len(s))
	for i, c := range s {
		parts[i] = strconv.Itoa(c)
	}
	return strings.Join(parts, ",")
}

// Parse reads a comma-separated list of CPU numbers, each a CPU of this
// machine, e.g. "1" or "1,2,3"; ranges such as "0-3", as the kernel
// writes them in /proc/PID/status, are read too.
func Parse(list string) (Set, error) {
	s, err := ParseList(list)
	if err != nil {
		return nil, err
	}
	online, err := Online()
	if err != nil {
		return nil, err
	}
	for _, c := range s {
		if !slices.Contains(online, c) {
			return nil, fmt.Errorf("CPU %d is not a CPU of this machine (its CPUs are %s)", c, online)
		}
	}
	return s, nil
}

// ParseList reads a list such as "0-2,5" without asking the machine
// whether it has those CPUs (Parse does): a command line read where the
// node will not run.
func ParseList(list string) (Set, error) {
	if strings.TrimSpace(list) == "" {
		return nil, errors.New("no CPUs: want a comma-separated list of CPU numbers, e.g. 1 or 1,2,3")
	}
	var s Set
	for part := range strings.SplitSeq(list, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		first, err1 := strconv.Atoi(lo)
		last, err2 := first, error(nil)
		if isRange {
			last, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || first < 0 || last < first {
			return nil, fmt.Errorf("%q is not a CPU number: want a comma-separated list of CPU numbers, e.g. 1 or 1,2,3", part)
		}
		for c := first; c <= last; c++ {
			s = append(s, c)
		}
	}
	slices.Sort(s)
	return slices.Compact(s), nil
}

// Online is this machine's CPUs: the kernel's online list, or failing that
// (no /sys) CPUs 0 to runtime.NumCPU()-1.
func Online() (Set, error) {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		s := make(Set, runtime.NumCPU())
		for i := range s {
			s[i] = i
		}
		return s, nil
	}
	s, err := ParseList(strings.TrimSpace(string(b)))
	if err != nil {
		return nil, fmt.Errorf("reading this machine's CPUs: %w", err)
	}
	return s, nil
}

// PinProcess moves every thread of this process onto the CPUs of s.
// Threads started later inherit the mask of the thread that starts them,
// and every thread has it, so the whole process stays on s, and so does a
// program this process becomes by exec. The kernel pins one thread per
// call, so the threads are walked until a pass finds none left unpinned:
// one started during a pass is caught by the next.
func PinProcess(s Set) error {
	if len(s) == 0 {
		return errors.New("pinning to no CPUs")
	}
	var mask unix.CPUSet
	for _, c := range s {
		mask.Set(c)
	}
	pinned := map[int]bool{}
	for {
		tids, err := threads()
		if err != nil {
			return err
		}
		fresh := 0
		for _, tid := range tids {
			if pinned[tid] {
				continue
			}
			fresh++
			// A thread that ended since the listing (ESRCH) needs no pinning.
			if err := unix.SchedSetaffinity(tid, &mask); err != nil && !errors.Is(err, unix.ESRCH) {
				return fmt.Errorf("pinning thread %d to CPUs %s: %w", tid, s, err)
			}
			pinned[tid] = true
		}
		if fresh == 0 {
			return nil
		}
	}
}

// threads lists this process's threads by their IDs.
func threads() ([]int, error) {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, fmt.Errorf("listing this process's threads: %w", err)
	}
	tids := make([]int, 0, len(tasks))
	for _, t := range tasks {
		if tid, err := strconv.Atoi(t.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}

// Allowed is the CPUs a process may run on, as the kernel says in
// /proc/PID/status (Cpus_allowed_list).
func Allowed(pid int) (Set, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return ParseList(strings.TrimSpace(v))
		}
	}
	return nil, fmt.Errorf("/proc/%d/status has no Cpus_allowed_list", pid)
}
