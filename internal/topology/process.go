package topology

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hopbench/hopbench/internal/nodeapi"
)

// ProcessConfig says how node processes are started.
type ProcessConfig struct {
	// Bin is the hopbench binary: each node is `Bin node` with its
	// configuration's flags (another runtime's node is started so too:
	// hopbench node --runtime jvm replaces itself with the JVM node).
	Bin string
	// Node is node i's configuration beyond the contract's addresses,
	// which Processes sets: --announce, --listen (default 127.0.0.1:0, a
	// free port; a broker stack's node listens on its broker, the URL
	// given with no name, so each node gets a queue, topic or subject of
	// its own), --admin and --downstream.
	Node func(i int) nodeapi.Config
	// Host, if set, places node i on a host of an emulated network: the
	// command that execs it there (ip netns exec NS) and the address it
	// serves and takes admin calls on instead of 127.0.0.1.
	Host func(i int) (exec []string, addr string)
	// Env is added to the node's environment.
	Env []string
	// Started is called with the node's PID as soon as it exists, before
	// it serves (to place it in a cgroup); an error stops the node.
	Started func(i, pid int) error
	// Stderr receives the node's standard error (default: this
	// process's stderr).
	Stderr io.Writer
}

// Processes returns a StartFunc that runs each node as a child process:
// `bin node --announce --listen 127.0.0.1:0 --admin 127.0.0.1:0
// --downstream ... ...`, and learns where it serves from the ready
// line of the node contract (package nodeapi) on its standard output. Each
// child is in its own process group, is killed if this process dies, and
// is interrupted, then killed if it lingers, when closed.
func Processes(cfg ProcessConfig) StartFunc {
	return func(ctx context.Context, i int, downstream []string) (Instance, error) {
		var node nodeapi.Config
		if cfg.Node != nil {
			node = cfg.Node(i)
		}
		node.Announce, node.Admin, node.Downstream = true, "127.0.0.1:0", downstream
		node.Listen = cmp.Or(node.Listen, "127.0.0.1:0")
		var prefix []string
		if cfg.Host != nil {
			exec, addr := cfg.Host(i)
			node.Admin, prefix = addr+":0", exec
			if !strings.Contains(node.Listen, "://") { // a broker stack's node listens on its broker
				node.Listen = addr + ":0"
			}
		}
		full := append(append(slices.Clip(prefix), cfg.Bin, "node"), node.Args()...)
		name := full[0]
		cmd := exec.Command(name, full[1:]...)
		cmd.Env = append(os.Environ(), cfg.Env...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		out := cfg.Stderr
		if out == nil {
			out = os.Stderr
		}
		tail := &tailWriter{}
		cmd.Stderr = io.MultiWriter(out, tail)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("starting %s: %w", name, err)
		}
		p := &Process{cmd: cmd, spawned: time.Now(), done: make(chan struct{})}
		go func() { p.waitErr = cmd.Wait(); close(p.done) }()
		if cfg.Started != nil {
			if err := cfg.Started(i, cmd.Process.Pid); err != nil {
				p.Close()
				return nil, err
			}
		}
		if err := p.awaitReady(ctx, stdout, tail); err != nil {
			p.Close()
			return nil, err
		}
		return p, nil
	}
}

// Process is a node running as a child process.
type Process struct {
	cmd         *exec.Cmd
	addr, admin string
	spawned     time.Time
	done        chan struct{}
	waitErr     error
}

// awaitReady reads the node's ready line for its addresses. A node that
// fails first is reported with the end of what it wrote on stderr.
func (p *Process) awaitReady(ctx context.Context, stdout io.Reader, stderr *tailWriter) error {
	lines := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		line, _ := r.ReadString('\n')
		lines <- line
		io.Copy(io.Discard, r) // a node writes nothing else there
	}()
	select {
	case line := <-lines:
		if line == "" {
			<-p.done
			return fmt.Errorf("node exited before it served (%v): %s", p.waitErr, stderr.String())
		}
		ready, err := nodeapi.ParseReady(line)
		if err != nil {
			return fmt.Errorf("node did not start: %w", err)
		}
		p.addr, p.admin = ready.Addr, ready.Admin
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(30 * time.Second):
		return fmt.Errorf("node announced nothing within 30s: %s", stderr.String())
	}
}

// tailWriter keeps the last lines written to it, for errors.
type tailWriter struct {
	mu  sync.Mutex
	buf []byte
}

func (w *tailWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, b...)
	if len(w.buf) > 2048 {
		w.buf = w.buf[len(w.buf)-2048:]
	}
	return len(b), nil
}

func (w *tailWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.TrimSpace(string(w.buf))
}

func (p *Process) Addr() string { return p.addr }

// AdminAddr is the node's admin endpoint.
func (p *Process) AdminAddr() string { return p.admin }

// Spawned is when the process was started.
func (p *Process) Spawned() time.Time { return p.spawned }

// Done is closed when the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitState is how the process ended; nil while it runs.
func (p *Process) ExitState() *os.ProcessState {
	select {
	case <-p.done:
		return p.cmd.ProcessState
	default:
		return nil
	}
}

// Exit says how the process ended, as os.ProcessState prints it; ""
// while it runs.
func (p *Process) Exit() string {
	if st := p.ExitState(); st != nil {
		return st.String()
	}
	return ""
}

// PID is the node process's id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Close interrupts the node and waits for it; past 10 seconds it kills the
// whole process group.
func (p *Process) Close() error {
	select {
	case <-p.done:
		return p.exitError()
	default:
	}
	p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
		return p.exitError()
	case <-time.After(10 * time.Second):
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
		return fmt.Errorf("node %d did not stop within 10s of an interrupt and was killed", p.cmd.Process.Pid)
	}
}

func (p *Process) exitError() error {
	if p.waitErr != nil {
		return fmt.Errorf("node %d: %w", p.cmd.Process.Pid, p.waitErr)
	}
	return nil
}
