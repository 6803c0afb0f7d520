// Package lease lets hopbench processes on one machine see what the others
// are using: a broker one run relies on, a broker being started, a run
// measuring on the same cores. A lease is an flock(2) on a file that names
// its holder; the kernel drops the lock when the holder releases it or
// dies, even by SIGKILL, so no lease outlives its process and no PID is
// ever trusted on its own.
package lease

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Holder is the process holding a lease.
type Holder struct {
	PID     int       `json:"pid"`
	Command string    `json:"command"`
	Since   time.Time `json:"since"`
}

func (h Holder) String() string {
	if h.PID == 0 {
		return "another hopbench process"
	}
	return fmt.Sprintf("pid %d (%s, since %s)", h.PID, h.Command, h.Since.Format("15:04:05"))
}

// self is this process as a holder.
func self() Holder {
	args := make([]string, len(os.Args))
	copy(args, os.Args)
	if len(args) > 0 {
		args[0] = filepath.Base(args[0])
	}
	cmd := strings.Join(args, " ")
	if len(cmd) > 200 {
		cmd = cmd[:200] + "…"
	}
	return Holder{PID: os.Getpid(), Command: cmd, Since: time.Now()}
}

// Root is the directory under which hopbench processes of this user keep
// their leases: HOPBENCH_LEASES, or hopbench-UID in the system's temporary
// directory.
func Root() string {
	if d := os.Getenv("HOPBENCH_LEASES"); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("hopbench-%d", os.Getuid()))
}

// Lease is a held lease; Release gives it up.
type Lease struct {
	f    *os.File
	path string
}

var seq atomic.Int64

// Take takes a shared lease among others in dir (made if missing): one of
// possibly many holders, each seen by Holders.
func Take(dir string) (*Lease, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("lease directory: %w", err)
	}
	// Locked before it is named *.lease, so Holders never sees it unlocked.
	f, err := os.CreateTemp(dir, ".taking-")
	if err != nil {
		return nil, fmt.Errorf("lease: %w", err)
	}
	if err := lock(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	path := filepath.Join(dir, fmt.Sprintf("%d-%d.lease", os.Getpid(), seq.Add(1)))
	if err := writeHolder(f); err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("lease: %w", err)
	}
	return &Lease{f: f, path: path}, nil
}

// Release gives the lease up; releasing nil or twice does nothing.
func (l *Lease) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	if l.path != "" {
		os.Remove(l.path)
	}
	err := l.f.Close() // drops the lock
	l.f = nil
	return err
}

// Holders lists the live leases in dir other than except (which may be
// nil). A lease file whose holder is gone is removed.
func Holders(dir string, except *Lease) ([]Holder, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.lease"))
	if err != nil {
		return nil, err
	}
	var out []Holder
	for _, p := range paths {
		if except != nil && p == except.path {
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			continue // released meanwhile
		}
		if lock(f) == nil { // nobody holds it: its holder is gone
			os.Remove(p)
			f.Close()
			continue
		}
		out = append(out, readHolder(f))
		f.Close()
	}
	return out, nil
}

// Lock takes the exclusive lock at path (made if missing), waiting while
// another process holds it until ctx ends; busy, if set, hears once who
// holds it before the wait.
func Lock(ctx context.Context, path string, busy func(Holder)) (*Lease, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("lock directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	told := false
	for {
		err := lock(f)
		if err == nil {
			break
		}
		if !errors.Is(err, errHeld) {
			f.Close()
			return nil, err
		}
		if !told && busy != nil {
			busy(readHolder(f))
			told = true
		}
		select {
		case <-ctx.Done():
			h := readHolder(f)
			f.Close()
			return nil, fmt.Errorf("%s is locked by %s: %w", path, h, context.Cause(ctx))
		case <-time.After(100 * time.Millisecond):
		}
	}
	if err := writeHolder(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock: %w", err)
	}
	return &Lease{f: f}, nil
}

var errHeld = errors.New("held by another process")

// lock takes an exclusive flock without waiting. Each holder has a file
// of its own, so no lock is ever shared.
func lock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return errHeld
		default:
			return fmt.Errorf("flock %s: %w", f.Name(), err)
		}
	}
}

func writeHolder(f *os.File) error {
	data, err := json.Marshal(self())
	if err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err = f.WriteAt(append(data, '\n'), 0)
	return err
}

// readHolder reads the holder a lease file names; a file being written
// reads as an unnamed holder.
func readHolder(f *os.File) Holder {
	var h Holder
	data := make([]byte, 4096)
	n, _ := f.ReadAt(data, 0)
	json.Unmarshal(data[:n], &h)
	return h
}

// measuringDir holds the leases of the hopbench processes measuring now.
func measuringDir() string { return filepath.Join(Root(), "measuring") }

// Measure marks this process as measuring on this machine until the lease
// is released, and returns the hopbench processes already measuring here:
// their load and services share the CPUs with this one's.
func Measure() (*Lease, []Holder, error) {
	l, err := Take(measuringDir())
	if err != nil {
		return nil, nil, err
	}
	others, err := Holders(measuringDir(), l)
	return l, others, err
}

// Measuring lists the hopbench processes measuring on this machine now,
// other than mine.
func Measuring(mine *Lease) []Holder {
	hs, _ := Holders(measuringDir(), mine)
	return hs
}
