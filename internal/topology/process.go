package topology

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// ProcessConfig says how node processes are started.
type ProcessConfig struct {
	// Bin is the hopbench binary.
	Bin string
	// Listen is every node's --listen (default 127.0.0.1:0, a free port;
	// for broker stacks, the broker's URL with no name, so each node gets a
	// queue, topic or subject of its own).
	Listen string
	// Args are node i's flags after the addresses (--stack, --tls-dir, ...).
	Args func(i int) []string
	// Prefix runs the node through another command that execs it in place,
	// such as taskset -c 1 for CPU pinning.
	Prefix []string
	// Env is added to the node's environment.
	Env []string
	// Started is called with the node's PID as soon as it exists, before
	// it serves (to place it in a cgroup); an error stops the node.
	Started func(i, pid int) error
	// Stderr receives the node's output after its start-up line
	// (default: this process's stderr).
	Stderr io.Writer
}

// Processes returns a StartFunc that runs each node as a child process:
// `bin node --listen 127.0.0.1:0 --admin 127.0.0.1:0 --downstream ...
// args(i)...`. Each child is in its own process group, is killed if this
// process dies, and is interrupted, then killed if it lingers, when closed.
func Processes(cfg ProcessConfig) StartFunc {
	return func(ctx context.Context, i int, downstream []string) (Instance, error) {
		listen := cfg.Listen
		if listen == "" {
			listen = "127.0.0.1:0"
		}
		argv := []string{"node", "--listen", listen, "--admin", "127.0.0.1:0"}
		if len(downstream) > 0 {
			argv = append(argv, "--downstream", strings.Join(downstream, ","))
		}
		if cfg.Args != nil {
			argv = append(argv, cfg.Args(i)...)
		}
		name := cfg.Bin
		if len(cfg.Prefix) > 0 {
			name, argv = cfg.Prefix[0], append(append(cfg.Prefix[1:len(cfg.Prefix):len(cfg.Prefix)], cfg.Bin), argv...)
		}
		cmd := exec.Command(name, argv...)
		cmd.Env = append(os.Environ(), cfg.Env...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		stderr, err := cmd.StderrPipe()
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
		out := cfg.Stderr
		if out == nil {
			out = os.Stderr
		}
		if err := p.awaitStartLine(ctx, stderr, out); err != nil {
			p.Close()
			return nil, err
		}
		return p, nil
	}
}

var startLine = regexp.MustCompile(`serving on (\S+), admin on http://(\S+);`)

// Process is a node running as a child process.
type Process struct {
	cmd         *exec.Cmd
	addr, admin string
	spawned     time.Time
	done        chan struct{}
	waitErr     error
}

// awaitStartLine reads the node's start-up line for its addresses; the rest
// of its stderr is passed on to ours so its errors are seen.
func (p *Process) awaitStartLine(ctx context.Context, stderr io.Reader, out io.Writer) error {
	lines := make(chan string, 1)
	r := bufio.NewReader(stderr)
	go func() {
		line, _ := r.ReadString('\n')
		lines <- line
		io.Copy(out, r)
	}()
	select {
	case line := <-lines:
		m := startLine.FindStringSubmatch(line)
		if m == nil {
			return fmt.Errorf("node did not start: %s", strings.TrimSpace(line))
		}
		p.addr, p.admin = m[1], m[2]
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-p.done:
		return fmt.Errorf("node exited before it served: %v", p.waitErr)
	case <-time.After(30 * time.Second):
		return errors.New("node printed no start-up line within 30s")
	}
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
