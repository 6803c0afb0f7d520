package broker

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// process is a broker's process, started by this one.
type process struct {
	cmd     *exec.Cmd
	done    chan struct{}
	waitErr error
}

// spawn starts argv with env added, its output appended to logPath and its
// stdin held open (RabbitMQ's VM stops at end of input). Unless detached,
// it is killed if this process dies.
func spawn(argv, env []string, dir, logPath string, detach bool) (*process, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	// A FIFO opened for reading and writing never reaches end of input, in
	// this process or, detached, after it is gone.
	fifo := logPath + ".stdin"
	os.Remove(fifo)
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		return nil, fmt.Errorf("stdin fifo: %w", err)
	}
	stdin, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer stdin.Close()
	os.Remove(fifo) // the open descriptor keeps it
	fmt.Fprintf(logf, "\n--- hopbench: starting %s at %s\n", strings.Join(argv, " "), time.Now().Format(time.RFC3339))
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr = dir, stdin, logf, logf
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if detach {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	} else {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", argv[0], err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() { p.waitErr = cmd.Wait(); close(p.done) }()
	return p, nil
}

func (p *process) pid() int { return p.cmd.Process.Pid }

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *process) exitErr() error {
	if p.waitErr == nil {
		return fmt.Errorf("exit status 0")
	}
	return p.waitErr
}

// terminate asks the process to stop (SIGTERM: RabbitMQ, Kafka and NATS
// all shut down cleanly on it) and waits; past timeout it kills its group.
func (p *process) terminate(timeout time.Duration) error {
	if p.exited() {
		return nil
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return nil
	case <-time.After(timeout):
		syscall.Kill(-p.pid(), syscall.SIGKILL)
		p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("pid %d did not stop within %v of SIGTERM and was killed", p.pid(), timeout)
	}
}

// ListenerPID returns the process listening on addr's TCP port on this
// machine, or 0 when none is found (or it is another user's).
func ListenerPID(addr string) int {
	_, portStr, _ := strings.Cut(addr, ":")
	if i := strings.LastIndexByte(addr, ':'); i >= 0 {
		portStr = addr[i+1:]
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return 0
	}
	inodes := map[string]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // header
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			// local_address is hex ip:port; state 0A is LISTEN; field 9 the inode.
			if len(fields) < 10 || fields[3] != "0A" {
				continue
			}
			_, hexPort, _ := strings.Cut(fields[1], ":")
			if p, err := strconv.ParseInt(hexPort, 16, 32); err == nil && int(p) == port {
				inodes["socket:["+fields[9]+"]"] = true
			}
		}
		f.Close()
	}
	if len(inodes) == 0 {
		return 0
	}
	procs, _ := os.ReadDir("/proc")
	for _, d := range procs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		fds, _ := os.ReadDir("/proc/" + d.Name() + "/fd")
		for _, fd := range fds {
			if link, err := os.Readlink("/proc/" + d.Name() + "/fd/" + fd.Name()); err == nil && inodes[link] {
				return pid
			}
		}
	}
	return 0
}
