package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Process is a running proxy: one leg's, in a process group of its own,
// killed if this process dies (Pdeathsig), its configuration and log in
// its leg's directory.
type Process struct {
	// Role names it in the run: "hop 0→1 outbound".
	Role string
	Kind string
	Leg  Leg
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// errExitedEarly is a proxy that exited before it listened (such as one
// whose port was taken after it was chosen).
var errExitedEarly = errors.New("exited before it listened")

// readyWithin bounds a proxy's start, to its listener accepting.
const readyWithin = 10 * time.Second

// start runs a proxy of kind k for l, named role, and waits until its
// listener accepts a connection. Its configuration and log are written
// to l.Dir (config and log).
func start(ctx context.Context, k Kind, role string, l Leg) (*Process, error) {
	if err := os.MkdirAll(filepath.Join(l.Dir, "tmp"), 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(l.Dir, k.Name()+".conf")
	if err := os.WriteFile(path, []byte(k.Config(l)), 0o644); err != nil {
		return nil, err
	}
	logf, err := os.OpenFile(filepath.Join(l.Dir, "log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	// A listener already there (another run's proxy) would answer the
	// readiness check for a proxy that could not bind.
	if err := addrFree(l.Listen); err != nil {
		return nil, fmt.Errorf("proxy %s (%s): %w", role, k.Name(), err)
	}
	cmd := exec.Command(k.Binary(), k.Args(path, l)...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = l.Dir, logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("proxy %s: %w", role, err)
	}
	p := &Process{Role: role, Kind: k.Name(), Leg: l, cmd: cmd, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	if err := p.awaitListening(ctx); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// addrFree refuses an address something already listens on.
func addrFree(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("%s is taken (another run's proxy, or another program): %w", addr, err)
	}
	return ln.Close()
}

// awaitListening waits until the proxy's listener accepts, or it exits
// (the end of its log says why).
func (p *Process) awaitListening(ctx context.Context) error {
	deadline := time.Now().Add(readyWithin)
	for {
		c, err := net.DialTimeout("tcp", p.Leg.Listen, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("proxy %s (%s) %w (%v): %s", p.Role, p.Kind, errExitedEarly, p.err, p.logTail())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("proxy %s (%s) did not listen on %s within %v: %s", p.Role, p.Kind, p.Leg.Listen, readyWithin, p.logTail())
		}
	}
}

// logTail is the end of the proxy's log, for errors.
func (p *Process) logTail() string {
	b, _ := os.ReadFile(filepath.Join(p.Leg.Dir, "log"))
	if e, err := os.ReadFile(filepath.Join(p.Leg.Dir, "error.log")); err == nil {
		b = append(b, e...)
	}
	s := strings.TrimSpace(string(b))
	if len(s) > 1024 {
		s = s[len(s)-1024:]
	}
	return s
}

// PID is the proxy's process id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Done is closed when the proxy has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exit says how the proxy ended, as os.ProcessState prints it; "" while
// it runs.
func (p *Process) Exit() string {
	select {
	case <-p.done:
		return p.cmd.ProcessState.String()
	default:
		return ""
	}
}

// Close stops the proxy (SIGTERM: both kinds stop at once on it) and
// waits; past 5 seconds it kills its process group.
func (p *Process) Close() error {
	select {
	case <-p.done:
		return nil
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return nil
	case <-time.After(5 * time.Second):
		syscall.Kill(-p.PID(), syscall.SIGKILL)
		<-p.done
		return fmt.Errorf("proxy %s (pid %d) did not stop within 5s of SIGTERM and was killed", p.Role, p.PID())
	}
}

// freeAddr is a loopback address no listener holds now, for a proxy to
// listen on (proxies take no port 0).
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// PIDsUnder are the running processes of every known kind whose command
// line names a file under dir: a run's proxies, found from outside it (a
// run killed with SIGKILL must leave none).
func PIDsUnder(dir string) []int {
	var pids []int
	procs, _ := os.ReadDir("/proc")
	for _, d := range procs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(cmdline), "\x00")
		for _, k := range kinds {
			if args[0] == k.Binary() && strings.Contains(string(cmdline), dir+string(filepath.Separator)) {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}
