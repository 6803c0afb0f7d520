// Package hosts makes hosts of their own on one machine for hopbench's
// agents (hopbench hosts up): network namespaces joined by veth pairs to
// a bridge on a private range, an agent in each, their certificates and a
// state file that runs and hosts down read. Only root can make them.
package hosts

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/network"
	"github.com/hopbench/hopbench/internal/results"
)

// DefaultPort is the port each host's agent serves on.
const DefaultPort = 7070

// Host is one host of the lab.
type Host struct {
	Name  string `json:"name"`
	NS    string `json:"namespace"`
	Addr  string `json:"addr"`
	Agent string `json:"agent"`
	PID   int    `json:"pid"`
	Log   string `json:"log"`
}

// State is what hosts up made, as it records it.
type State struct {
	Subnet string `json:"subnet"`
	// Here is this machine's own address on the lab.
	Here string `json:"here"`
	// TLSDir is the certificate bundle the agents take coordinators with.
	TLSDir    string `json:"tls_dir"`
	Bandwidth string `json:"bandwidth,omitempty"`
	Hosts     []Host `json:"hosts"`
}

// Dir is where hosts up keeps its state: $HOPBENCH_HOME/hosts, or
// .hopbench/hosts here.
func Dir() string {
	dir := filepath.Join(".hopbench", "hosts")
	if home := os.Getenv("HOPBENCH_HOME"); home != "" {
		dir = filepath.Join(home, "hosts")
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

const stateFile = "hosts.json"

// Read reads the state hosts up recorded in dir; os.ErrNotExist when no
// hosts are up.
func Read(dir string) (*State, error) {
	b, err := os.ReadFile(filepath.Join(dir, stateFile))
	if err != nil {
		return nil, err
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, stateFile), err)
	}
	return &s, nil
}

// Find is the host named name.
func (s *State) Find(name string) (Host, bool) {
	for _, h := range s.Hosts {
		if h.Name == name {
			return h, true
		}
	}
	return Host{}, false
}

// Config is what hosts up makes.
type Config struct {
	N int
	// Bandwidth, if set, shapes every link with tbf.
	Bandwidth network.Bandwidth
	Port      int
	// Bin is the hopbench binary the agents run (default: this one).
	Bin string
	Dir string
}

// Name is host i's name: a, b, c, ...
func Name(i int) string { return string(rune('a' + i)) }

// Up makes the hosts and starts an agent in each; on any failure it
// removes what it made.
func Up(ctx context.Context, cfg Config) (st *State, err error) {
	if caps := network.Detect(); caps.Missing != "" {
		return nil, fmt.Errorf("hosts up: %s", caps.Missing)
	}
	if err := network.CleanStale(); err != nil {
		return nil, err
	}
	lab, err := network.NewHosts(cfg.N)
	if err != nil {
		return nil, fmt.Errorf("hosts up: %w", err)
	}
	defer func() {
		if err != nil {
			Down(cfg.Dir)
		}
	}()
	if cfg.Bandwidth > 0 {
		if err := lab.Shape(network.Profile{Bandwidth: cfg.Bandwidth}); err != nil {
			return nil, err
		}
	}
	st = &State{Subnet: lab.Subnet(), Here: lab.Addrs()[0].String(), TLSDir: filepath.Join(cfg.Dir, "tls")}
	if cfg.Bandwidth > 0 {
		st.Bandwidth = cfg.Bandwidth.String()
	}
	if err := freshBundle(st.TLSDir, lab.Addrs()); err != nil {
		return nil, err
	}
	for i, h := range lab.Hosts() {
		host, err := startAgent(ctx, cfg, st.TLSDir, Name(i), h)
		if err != nil {
			return nil, err // Down finds what was started by its namespace
		}
		st.Hosts = append(st.Hosts, host)
	}
	return st, results.WriteFileAtomic(filepath.Join(cfg.Dir, stateFile), func(w io.Writer) error {
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(st)
	})
}

// freshBundle replaces dir with a new bundle naming the lab's addresses.
func freshBundle(dir string, addrs []net.IP) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	b, err := certs.New(addrs...)
	if err != nil {
		return err
	}
	return b.Store(dir)
}

// startAgent starts hopbench agent on h, detached from this process (the
// hosts outlive it), its output in a log, and waits until it listens.
func startAgent(ctx context.Context, cfg Config, tlsDir, name string, h *network.Host) (Host, error) {
	bin := cfg.Bin
	if bin == "" {
		var err error
		if bin, err = os.Executable(); err != nil {
			return Host{}, err
		}
	}
	addr := net.JoinHostPort(h.Addr, strconv.Itoa(cfg.Port))
	host := Host{Name: name, NS: h.NS, Addr: h.Addr, Agent: addr, Log: filepath.Join(cfg.Dir, "agent-"+name+".log")}
	log, err := os.Create(host.Log)
	if err != nil {
		return host, err
	}
	defer log.Close()
	args := append(h.Exec(), bin, "agent", "--listen", addr, "--advertise", h.Addr, "--name", name, "--tls-dir", tlsDir)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return host, fmt.Errorf("host %s: starting its agent: %w", name, err)
	}
	host.PID = cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			tail, _ := os.ReadFile(host.Log)
			return host, fmt.Errorf("host %s: its agent exited (%v): %s", name, err, tail)
		case <-ctx.Done():
			return host, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			cmd.Process.Release()
			return host, nil
		}
	}
	return host, fmt.Errorf("host %s: its agent did not listen on %s within 10s (log: %s)", name, addr, host.Log)
}

// Down stops the agents hosts up started (they stop what they run) and
// removes every namespace and link of the lab, and its state; also after
// a crash, when there is no state or it is half-made. An agent is
// signalled only while it is in its host's namespace: a state file older
// than a reboot names PIDs that may be anyone's now. It says what it
// removed.
func Down(dir string) (string, error) {
	st, err := Read(dir)
	if err != nil {
		st = &State{} // none, or unreadable: the namespaces still go
	}
	stopped := 0
	for _, h := range st.Hosts {
		if h.PID > 0 && slices.Contains(network.NamespacePIDs(h.NS), h.PID) && interrupt(h.PID) {
			stopped++
		}
	}
	removed, err := network.RemoveHosts()
	os.Remove(filepath.Join(dir, stateFile))
	return fmt.Sprintf("%d agents stopped, %d namespaces removed", stopped, removed), err
}

// interrupt asks an agent to stop (it stops its nodes first) and waits up
// to 5 seconds for it to; RemoveHosts kills what is left. It reports
// whether the agent stopped so.
func interrupt(pid int) bool {
	if syscall.Kill(pid, syscall.SIGTERM) != nil {
		return false
	}
	for range 100 {
		if syscall.Kill(pid, 0) != nil {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}
