package stats

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Proc is what /proc says about one process at one moment.
type Proc struct {
	CPUSeconds   float64 `json:"cpu_seconds"`    // user + system since it started
	RSSBytes     int64   `json:"rss_bytes"`      // resident now
	PeakRSSBytes int64   `json:"peak_rss_bytes"` // highest resident since start or the last ResetPeak
	// AnonRSSBytes is the anonymous part of RSSBytes: heap, stacks and
	// runtime, without the mapped binary and files, which processes of one
	// binary share.
	AnonRSSBytes int64 `json:"anon_rss_bytes"`
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's CPU times; 100 on
// every Linux architecture Go supports.
const clockTicks = 100

// StatFields reads /proc/PID/stat from its third field (the state) on,
// so f[0] is field 3: the command name before it may hold spaces.
func StatFields(pid int) ([]string, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, fmt.Errorf("process %d: %w", pid, err)
	}
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return nil, fmt.Errorf("process %d: unreadable stat", pid)
	}
	return strings.Fields(string(stat[end+1:])), nil
}

// ReadProc samples a process.
func ReadProc(pid int) (Proc, error) {
	f, err := StatFields(pid)
	if err != nil {
		return Proc{}, err
	}
	if len(f) < 13 {
		return Proc{}, fmt.Errorf("process %d: short stat", pid)
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64) // field 14
	stime, _ := strconv.ParseInt(f[12], 10, 64) // field 15
	p := Proc{CPUSeconds: float64(utime+stime) / clockTicks}
	status, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Proc{}, fmt.Errorf("process %d: %w", pid, err)
	}
	defer status.Close()
	sc := bufio.NewScanner(status)
	for sc.Scan() {
		key, val, _ := strings.Cut(sc.Text(), ":")
		switch key {
		case "VmRSS":
			p.RSSBytes = kB(val)
		case "VmHWM":
			p.PeakRSSBytes = kB(val)
		case "RssAnon":
			p.AnonRSSBytes = kB(val)
		}
	}
	return p, sc.Err()
}

func kB(s string) int64 {
	n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(s), " kB"), 10, 64)
	return n * 1024
}

// ResetPeak starts a process's peak RSS afresh from its current RSS, so a
// peak read later belongs to the measured window and not to start-up.
func ResetPeak(pid int) error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}

// UsableCPUs is how many CPUs this thread may run on (its affinity, which
// pinning narrows), at least 1.
func UsableCPUs() int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil || set.Count() == 0 {
		return 1
	}
	return set.Count()
}

// SelfCPU is the CPU time this process has used (user + system), at
// microsecond resolution.
func SelfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TaskCPU is the time a process's live threads have run on a CPU, from
// the scheduler's own accounting (/proc/PID/task/*/schedstat, in
// nanoseconds): finer than Proc's CPU seconds, which count whole clock
// ticks (10 ms: 33 µs a request over a second at 300 req/s). A thread
// that has exited is not in it.
func TaskCPU(pid int) (time.Duration, error) {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return 0, fmt.Errorf("process %d: %w", pid, err)
	}
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, t.Name()))
		if err != nil {
			continue // a thread gone since the listing
		}
		ns, err := strconv.ParseInt(strings.Fields(string(b) + " 0")[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("process %d: schedstat %q", pid, b)
		}
		sum += time.Duration(ns)
	}
	return sum, nil
}
