// Package cgroup limits the memory of node processes with Linux control
// groups, as the thesis ran its services in 400 MB pods, and tells whether
// the kernel killed a process for exceeding its limit. It works with the
// v1 memory controller and with v2, creating groups below the one this
// process is in.
package cgroup

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Memory is one memory-limited group.
type Memory struct {
	dir string
	v2  bool
}

// NewMemory creates a group named name with the given limit in bytes.
func NewMemory(name string, limit int64) (*Memory, error) {
	base, v2, err := ownGroup()
	if err != nil {
		return nil, err
	}
	m := &Memory{dir: filepath.Join(base, name), v2: v2}
	if err := os.Mkdir(m.dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("memory limit: creating cgroup %s: %w (memory limits need root and a writable cgroup filesystem)", m.dir, err)
	}
	file, value := "memory.limit_in_bytes", strconv.FormatInt(limit, 10)
	if v2 {
		file = "memory.max"
	}
	if err := m.write(file, value); err != nil {
		m.Close()
		return nil, err
	}
	if !v2 {
		// Without swap limited too, a v1 group swaps instead of being killed.
		m.write("memory.memsw.limit_in_bytes", value) // absent when swap accounting is off
	} else {
		m.write("memory.swap.max", "0")
	}
	return m, nil
}

// ownGroup finds the memory cgroup directory this process is in.
func ownGroup() (dir string, v2 bool, err error) {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return "", false, fmt.Errorf("memory limit: %w", err)
	}
	defer f.Close()
	var unified string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "memory" {
				return filepath.Join("/sys/fs/cgroup/memory", parts[2]), false, nil
			}
		}
		if parts[0] == "0" && parts[1] == "" {
			unified = parts[2]
		}
	}
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		return filepath.Join("/sys/fs/cgroup", unified), true, nil
	}
	return "", false, errors.New("memory limit: no cgroup memory controller on this machine")
}

func (m *Memory) write(file, value string) error {
	if err := os.WriteFile(filepath.Join(m.dir, file), []byte(value), 0); err != nil {
		return fmt.Errorf("memory limit: writing %s: %w", file, err)
	}
	return nil
}

// Add moves a process into the group.
func (m *Memory) Add(pid int) error { return m.write("cgroup.procs", strconv.Itoa(pid)) }

// OOMKills is how many processes the kernel killed in the group for
// exceeding its limit.
func (m *Memory) OOMKills() int64 {
	file, key := "memory.oom_control", "oom_kill"
	if m.v2 {
		file = "memory.events"
	}
	data, err := os.ReadFile(filepath.Join(m.dir, file))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok && k == key {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}

// Close removes the group; it must be empty (its processes ended).
func (m *Memory) Close() error {
	if err := os.Remove(m.dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("memory limit: removing %s: %w", m.dir, err)
	}
	return nil
}
