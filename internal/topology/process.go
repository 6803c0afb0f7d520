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

// Processes returns a StartFunc that runs each node as a child process of
// bin (the hopbench binary): `bin node --listen 127.0.0.1:0 --admin
// 127.0.0.1:0 --downstream ... args(i)...`. Each child is in its own process
// group and is interrupted, then killed if it lingers, when closed.
func Processes(bin string, args func(i int) []string) StartFunc {
	return func(ctx context.Context, i int, downstream []string) (Instance, error) {
		argv := []string{"node", "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0"}
		if len(downstream) > 0 {
			argv = append(argv, "--downstream", strings.Join(downstream, ","))
		}
		argv = append(argv, args(i)...)
		cmd := exec.Command(bin, argv...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		stderr, err := cmd.StderrPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("starting %s: %w", bin, err)
		}
		p := &process{cmd: cmd, spawned: time.Now(), done: make(chan struct{})}
		go func() { p.waitErr = cmd.Wait(); close(p.done) }()
		if err := p.awaitStartLine(ctx, stderr); err != nil {
			p.Close()
			return nil, err
		}
		return p, nil
	}
}

var startLine = regexp.MustCompile(`serving on (\S+), admin on http://(\S+);`)

type process struct {
	cmd         *exec.Cmd
	addr, admin string
	spawned     time.Time
	done        chan struct{}
	waitErr     error
}

// awaitStartLine reads the node's start-up line for its addresses; the rest
// of its stderr is passed on to ours so its errors are seen.
func (p *process) awaitStartLine(ctx context.Context, stderr io.Reader) error {
	lines := make(chan string, 1)
	r := bufio.NewReader(stderr)
	go func() {
		line, _ := r.ReadString('\n')
		lines <- line
		io.Copy(os.Stderr, r)
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
	case <-time.After(30 * time.Second):
		return errors.New("node printed no start-up line within 30s")
	}
}

func (p *process) Addr() string { return p.addr }

// AdminAddr is the node's admin endpoint.
func (p *process) AdminAddr() string { return p.admin }

// PID is the node process's id.
func (p *process) PID() int { return p.cmd.Process.Pid }

// Close interrupts the node and waits for it; past 10 seconds it kills the
// whole process group.
func (p *process) Close() error {
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

func (p *process) exitError() error {
	if p.waitErr != nil {
		return fmt.Errorf("node %d: %w", p.cmd.Process.Pid, p.waitErr)
	}
	return nil
}
