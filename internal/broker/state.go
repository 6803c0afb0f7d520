package broker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/hopbench/hopbench/internal/lease"
	"github.com/hopbench/hopbench/internal/stats"
)

func statePath(dir string) string { return filepath.Join(dir, "broker.json") }

func (b *Broker) writeState() error {
	b.StartTimes = map[string]uint64{}
	for _, pid := range append([]int{b.PID}, b.Extra...) {
		if t := startTime(pid); t != 0 {
			b.StartTimes[strconv.Itoa(pid)] = t
		}
	}
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(statePath(b.dir), data, 0o644)
}

// Status is what Status reports for one broker.
type Status struct {
	Broker
	// Up is true when the broker answers at Addr.
	Up bool `json:"up"`
	// Stale is true when a state file names a process that is gone (or is
	// now another process): what hopbench started is no longer running.
	Stale    bool   `json:"stale,omitempty"`
	RSSBytes int64  `json:"rss_bytes,omitempty"`
	Error    string `json:"error,omitempty"`
	// Users are the hopbench processes using the broker now.
	Users []string `json:"users,omitempty"`
}

// GetStatus probes the named broker at its configured address.
func GetStatus(ctx context.Context, name string, cfg Config) (Status, error) {
	cfg, err := cfg.withDefaults(name)
	if err != nil {
		return Status{}, err
	}
	st := Status{Broker: Broker{Name: name, Addr: cfg.Addr}}
	users, _ := lease.Holders(usersDir(name, cfg.Addr), nil)
	for _, u := range users {
		st.Users = append(st.Users, u.String())
	}
	if saved, err := readState(cfg.Dir); err == nil && saved.Addr == cfg.Addr {
		if saved.still(saved.PID) {
			st.Broker = *saved
		} else {
			st.Stale = true
		}
	}
	version, err := Probe(ctx, name, cfg.Addr)
	if st.Version == "" {
		st.Version = version
	}
	if err != nil {
		st.Error = err.Error()
		return st, nil
	}
	st.Up = true
	if st.PID == 0 {
		st.PID = ListenerPID(cfg.Addr)
	}
	if st.PID != 0 {
		if p, err := stats.ReadProc(st.PID); err == nil {
			st.RSSBytes = p.RSSBytes
		}
	}
	return st, nil
}

func readState(dir string) (*Broker, error) {
	data, err := os.ReadFile(statePath(dir))
	if err != nil {
		return nil, err
	}
	var b Broker
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("%s: %w", statePath(dir), err)
	}
	b.dir = dir
	return &b, nil
}

// Down stops the named broker if hopbench started it (its state file says
// so). It reports what it did; a broker hopbench did not start is left
// running.
func Down(ctx context.Context, name string, cfg Config) (string, error) {
	cfg, err := cfg.withDefaults(name)
	if err != nil {
		return "", err
	}
	saved, err := readState(cfg.Dir)
	switch {
	case errors.Is(err, os.ErrNotExist) || (err == nil && !saved.still(saved.PID)):
		stale := err == nil
		os.Remove(statePath(cfg.Dir))
		var errs []error
		if stale {
			errs = saved.stopExtra() // an epmd that outlived its broker
		}
		if _, perr := Probe(ctx, name, cfg.Addr); perr == nil {
			return fmt.Sprintf("%s at %s was not started by hopbench: left running", name, cfg.Addr), errors.Join(errs...)
		}
		if stale {
			return fmt.Sprintf("%s: not running (its state named pid %d, which is gone or now another process: left alone)", name, saved.PID), errors.Join(errs...)
		}
		return fmt.Sprintf("%s: not running", name), nil
	case err != nil:
		return "", err
	}
	if users, _ := lease.Holders(usersDir(name, saved.Addr), nil); len(users) > 0 && !cfg.Force {
		return "", fmt.Errorf("%s at %s is in use by %s: stopping it would end that run's measurements; wait for it, or force it with --force", name, saved.Addr, users[0])
	}
	errs := append([]error{stopPID(saved.PID, 30*time.Second)}, saved.stopExtra()...)
	os.Remove(statePath(cfg.Dir))
	return fmt.Sprintf("%s at %s (pid %d): stopped", name, saved.Addr, saved.PID), errors.Join(errs...)
}

// still reports whether pid is alive and the very process the state file
// recorded (same start time). A state written before start times were
// kept cannot tell, so its PIDs are never signalled.
func (b *Broker) still(pid int) bool {
	t, ok := b.StartTimes[strconv.Itoa(pid)]
	running, start := procState(pid)
	return ok && running && start == t
}

// stopExtra stops the helpers (RabbitMQ's epmd) that are still the ones
// started with the broker.
func (b *Broker) stopExtra() []error {
	var errs []error
	for _, pid := range b.Extra {
		if b.still(pid) {
			errs = append(errs, stopPID(pid, 5*time.Second))
		}
	}
	return errs
}

// startTime is pid's start time in clock ticks since boot (field 22 of
// /proc/PID/stat); 0 when there is no such process.
func startTime(pid int) uint64 {
	_, start := procState(pid)
	return start
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	running, _ := procState(pid)
	return running
}

// procState reads /proc/PID/stat once: whether pid is running (not a
// zombie) and its start time (0 when there is no such process).
func procState(pid int) (running bool, start uint64) {
	if pid <= 0 {
		return false, 0
	}
	f, err := stats.StatFields(pid)
	if err != nil || len(f) == 0 {
		return false, 0
	}
	if len(f) >= 20 {
		start, _ = strconv.ParseUint(f[19], 10, 64)
	}
	return f[0] != "Z" && f[0] != "X", start
}

// stopPID interrupts a process that is not our child and waits for it to
// go, killing it past timeout.
func stopPID(pid int, timeout time.Duration) error {
	if !alive(pid) {
		return nil
	}
	syscall.Kill(pid, syscall.SIGTERM)
	deadline := time.Now().Add(timeout)
	for alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			time.Sleep(200 * time.Millisecond)
			return fmt.Errorf("pid %d did not stop within %v and was killed", pid, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nil
}
