package network

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Kernel emulation puts each node and the generator on a host of its own:
// a network namespace joined by a veth pair to a bridge the lab makes,
// with an address on a private range (10.231.N.0/24). Each veth is shaped
// on both ends (tbf for bandwidth; netem for delay and jitter where the
// kernel has it), so every hop, which crosses two veths, pays the delay
// once each way (half on each) and the bandwidth of its links.

// Capabilities are what this machine's kernel and tools offer.
type Capabilities struct {
	Root, IP, TBF, Netem bool
	// Missing says why kernel mode cannot run, when it cannot.
	Missing string
}

// Detect probes for root, iproute2 and the qdiscs, in a namespace of its
// own that it removes.
func Detect() Capabilities {
	var c Capabilities
	c.Root = os.Geteuid() == 0
	_, err := exec.LookPath("ip")
	_, terr := exec.LookPath("tc")
	c.IP = err == nil && terr == nil
	switch {
	case !c.Root:
		c.Missing = "kernel network emulation needs root (namespaces, veth pairs and qdiscs)"
		return c
	case !c.IP:
		c.Missing = "kernel network emulation needs iproute2's ip and tc (apt-get install iproute2)"
		return c
	}
	ns := fmt.Sprintf("hb%s-probe", strconv.FormatInt(int64(os.Getpid()), 36))
	if run("ip", "netns", "add", ns) != nil {
		c.Missing = "cannot make a network namespace (ip netns add)"
		return c
	}
	defer run("ip", "netns", "del", ns)
	if run("ip", "-n", ns, "link", "add", "hbv", "type", "veth", "peer", "name", "hbw") != nil {
		c.Missing = "cannot make a veth pair (ip link add type veth)"
		return c
	}
	c.TBF = run("tc", "-n", ns, "qdisc", "add", "dev", "hbv", "root", "tbf", "rate", "1mbit", "burst", "32kbit", "latency", "50ms") == nil
	run("tc", "-n", ns, "qdisc", "del", "dev", "hbv", "root")
	c.Netem = run("tc", "-n", ns, "qdisc", "add", "dev", "hbv", "root", "netem", "delay", "1ms") == nil
	if !c.TBF {
		c.Missing = "this kernel has no tbf qdisc"
	}
	return c
}

// CheckKernel refuses what c cannot emulate for p, naming what is missing
// and the in-process alternative.
func (p Profile) CheckKernel(c Capabilities) error {
	if c.Missing != "" {
		return fmt.Errorf("network_mode kernel: %s; network_mode in-process emulates %s without it", c.Missing, p)
	}
	if (p.Delay > 0 || p.Jitter > 0) && !c.Netem {
		return fmt.Errorf("network_mode kernel: delay and jitter need the netem qdisc, which this kernel does not have (tc: \"Specified qdisc kind is unknown\"); give bandwidth alone, or use network_mode in-process, which emulates delay without it")
	}
	return nil
}

// Lab is a run's hosts: a bridge and a namespace per host.
type Lab struct {
	id     string // hb<pid base 36>: the prefix of every name the lab makes
	subnet int    // the third octet of 10.231.N.0/24
	hosts  []*Host
}

// Host is a namespace with an address on the lab's bridge.
type Host struct {
	NS, Addr string
}

// labPrefix starts every name a lab makes: hb<pid base 36>.
const labPrefix = "hb"

// NewLab makes n hosts shaped by p (checked with CheckKernel first). The
// names carry this process's PID, so that CleanStale can remove a lab
// whose process died.
func NewLab(p Profile, n int) (*Lab, error) {
	if n < 1 || n > 200 {
		return nil, fmt.Errorf("network: %d hosts: want 1 to 200", n)
	}
	l := &Lab{id: labPrefix + strconv.FormatInt(int64(os.Getpid()), 36)}
	var err error
	if l.subnet, err = freeSubnet(); err != nil {
		return nil, err
	}
	if err := l.bridge(); err != nil {
		l.Close()
		return nil, err
	}
	for i := range n {
		h, err := l.host(i, p)
		if err != nil {
			l.Close()
			return nil, err
		}
		l.hosts = append(l.hosts, h)
	}
	return l, nil
}

// Hosts are the lab's hosts, in the order made.
func (l *Lab) Hosts() []*Host { return l.hosts }

func (l *Lab) bridge() error {
	br := l.id + "br"
	return runAll(
		[]string{"ip", "link", "add", br, "type", "bridge"},
		[]string{"ip", "addr", "add", fmt.Sprintf("10.231.%d.1/24", l.subnet), "dev", br},
		[]string{"ip", "link", "set", br, "up"},
	)
}

func (l *Lab) host(i int, p Profile) (*Host, error) {
	h := &Host{NS: fmt.Sprintf("%s-%d", l.id, i), Addr: fmt.Sprintf("10.231.%d.%d", l.subnet, 10+i)}
	outer, inner := fmt.Sprintf("%sh%d", l.id, i), fmt.Sprintf("%sn%d", l.id, i)
	err := runAll(
		[]string{"ip", "netns", "add", h.NS},
		[]string{"ip", "link", "add", outer, "type", "veth", "peer", "name", inner},
		[]string{"ip", "link", "set", inner, "netns", h.NS},
		[]string{"ip", "link", "set", outer, "master", l.id + "br", "up"},
		[]string{"ip", "-n", h.NS, "addr", "add", h.Addr + "/24", "dev", inner},
		[]string{"ip", "-n", h.NS, "link", "set", inner, "up"},
		[]string{"ip", "-n", h.NS, "link", "set", "lo", "up"},
	)
	if err != nil {
		return nil, err
	}
	if err := shape(nil, outer, p); err != nil {
		return nil, err
	}
	return h, shape([]string{"-n", h.NS}, inner, p)
}

// shape puts p on dev's egress: half the delay (a hop crosses two veths)
// through netem, the bandwidth through tbf under it.
func shape(ns []string, dev string, p Profile) error {
	tc := func(args ...string) []string { return append(append([]string{"tc"}, ns...), args...) }
	parent := []string{"root"}
	var cmds [][]string
	if p.Delay > 0 || p.Jitter > 0 {
		netem := []string{"qdisc", "add", "dev", dev, "root", "handle", "1:", "netem", "delay", usec(p.Delay / 2)}
		if p.Jitter > 0 {
			netem = append(netem, usec(p.Jitter/2))
		}
		cmds = append(cmds, tc(netem...))
		parent = []string{"parent", "1:"}
	}
	if p.Bandwidth > 0 {
		// A burst of a millisecond at the rate (at least a full packet:
		// a link sends no faster than its rate) and a queue of 200 ms:
		// beyond it packets drop, as a real bottleneck's do.
		burst := max(int64(p.Bandwidth)/8/1000, 1600)
		args := append([]string{"qdisc", "add", "dev", dev}, parent...)
		args = append(args, "tbf", "rate", strconv.FormatInt(int64(p.Bandwidth), 10)+"bit", "burst", strconv.FormatInt(burst, 10), "latency", "200ms")
		cmds = append(cmds, tc(args...))
	}
	return runAll(cmds...)
}

func usec(d time.Duration) string { return strconv.FormatInt(d.Microseconds(), 10) + "us" }

// Close removes everything the lab made: its namespaces (their veth ends
// go with them) and its bridge.
func (l *Lab) Close() error {
	var errs []error
	for _, h := range l.hosts {
		errs = append(errs, run("ip", "netns", "del", h.NS))
	}
	errs = append(errs, removeLab(l.id))
	return errors.Join(errs...)
}

// removeLab removes every namespace and link named after id, also those a
// lab made before it failed.
func removeLab(id string) error {
	var errs []error
	out, _ := exec.Command("ip", "netns", "list").Output()
	for _, line := range strings.Split(string(out), "\n") {
		if ns, _, _ := strings.Cut(line, " "); strings.HasPrefix(ns, id+"-") {
			errs = append(errs, run("ip", "netns", "del", ns))
		}
	}
	links, _ := exec.Command("ip", "-o", "link", "show").Output()
	for _, line := range strings.Split(string(links), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		if name, _, _ := strings.Cut(strings.TrimSuffix(f[1], ":"), "@"); strings.HasPrefix(name, id) {
			if err := run("ip", "link", "del", name); err != nil && !strings.Contains(err.Error(), "Cannot find device") {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// CleanStale removes the labs of hopbench processes that are gone (killed
// before they could close them); a lab's names carry its process's PID.
func CleanStale() error {
	out, err := exec.Command("ip", "-o", "link", "show", "type", "bridge").Output()
	if err != nil {
		return nil // no iproute2: no lab was ever made
	}
	var errs []error
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		name := strings.TrimSuffix(f[1], ":")
		id, ok := strings.CutSuffix(name, "br")
		pid, perr := strconv.ParseInt(strings.TrimPrefix(id, labPrefix), 36, 64)
		if !ok || !strings.HasPrefix(id, labPrefix) || perr != nil || alive(int(pid)) {
			continue
		}
		errs = append(errs, removeLab(id))
	}
	return errors.Join(errs...)
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// freeSubnet is a 10.231.N.0/24 no interface of this machine uses.
func freeSubnet() (int, error) {
	out, err := exec.Command("ip", "-o", "-4", "addr", "show").Output()
	if err != nil {
		return 0, fmt.Errorf("network: listing addresses: %w", err)
	}
	start := os.Getpid()%250 + 1
	for k := range 250 {
		n := (start+k)%250 + 1
		if !bytes.Contains(out, []byte(fmt.Sprintf(" 10.231.%d.", n))) {
			return n, nil
		}
	}
	return 0, errors.New("network: every 10.231.N.0/24 is in use")
}

// DialContext dials from inside h's namespace.
func (h *Host) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return inside(h, func() (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	})
}

// Listen listens inside h's namespace.
func (h *Host) Listen(addr string) (net.Listener, error) {
	return inside(h, func() (net.Listener, error) { return net.Listen("tcp", addr) })
}

// inside runs f on a thread moved into h's namespace, and back: a socket
// made there stays there whichever thread uses it after. The thread is
// moved back rather than left to end, because a child process started
// from a thread gets its death signal (Pdeathsig) when that thread ends,
// and node processes are started from any of them. A thread that cannot
// be moved back is left locked, and so ends with its goroutine.
func inside[T any](h *Host, f func() (T, error)) (T, error) {
	var zero T
	runtime.LockOSThread()
	home, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		runtime.UnlockOSThread()
		return zero, fmt.Errorf("network: this thread's namespace: %w", err)
	}
	defer home.Close()
	if err := enter(h.NS); err != nil {
		runtime.UnlockOSThread()
		return zero, err
	}
	v, err := f()
	if unix.Setns(int(home.Fd()), unix.CLONE_NEWNET) == nil {
		runtime.UnlockOSThread()
	}
	return v, err
}

// enter moves this (locked) thread into the namespace ns.
func enter(ns string) error {
	f, err := os.Open("/var/run/netns/" + ns)
	if err != nil {
		return fmt.Errorf("network: host %s: %w", ns, err)
	}
	defer f.Close()
	if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
		return fmt.Errorf("network: entering %s: %w", ns, err)
	}
	return nil
}

// Exec is the command prefix that runs a program on h.
func (h *Host) Exec() []string { return []string{"ip", "netns", "exec", h.NS} }

func run(args ...string) error {
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w: %s", strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

func runAll(cmds ...[]string) error {
	for _, c := range cmds {
		if err := run(c...); err != nil {
			return err
		}
	}
	return nil
}
