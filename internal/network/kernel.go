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
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Kernel emulation runs the generator and each node on a host of its own,
// a network namespace, and joins them and this machine's own namespace to
// a bridge (see Lab), every link shaped by the kernel: tbf for bandwidth,
// netem for delay and jitter where the kernel has it.

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
	ns := fmt.Sprintf("%s%s_probe", labPrefix, strconv.FormatInt(int64(os.Getpid()), 36))
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

// Lab is hosts of their own: a switch (a bridge in a namespace of the
// lab's) to which this machine's own namespace and each host, a namespace
// of its own, are attached by a veth pair. Every veth is shaped on both
// ends, so that every path (a host to another, a host to here) crosses
// two veths and pays half the delay on each. Here, on Here, is where
// hopbench and the brokers are; the generator dials from a host.
type Lab struct {
	id     string // hb<pid base 36>: the prefix of every name the lab makes
	subnet int    // the third octet of 10.231.N.0/24
	// Here is this machine's own address on the lab.
	Here  string
	hosts []*Host
	ends  []end // every veth end, each shaped
}

// Host is a namespace with an address on the lab.
type Host struct {
	NS, Addr string
}

// end is one end of a veth: its namespace ("" for this one) and name.
type end struct{ ns, dev string }

// labPrefix starts every name a lab makes: hb<pid base 36>.
const labPrefix = "hb"

// NewLab makes n hosts, unshaped (Shape shapes them). Its names carry this
// process's PID, so that CleanStale can remove a lab whose process died.
func NewLab(n int) (*Lab, error) {
	return newLab(labPrefix+strconv.FormatInt(int64(os.Getpid()), 36), n)
}

// HostsID names the lab of hopbench hosts up. It outlives the process
// that made it, so its names carry no PID: CleanStale leaves it, and
// RemoveHosts (hopbench hosts down) removes it.
const HostsID = labPrefix + "hosts"

// MaxHosts bounds hopbench hosts up.
const MaxHosts = 26

// NewHosts makes the lab of hopbench hosts up: n hosts, unshaped. It
// refuses when that lab exists already.
func NewHosts(n int) (*Lab, error) {
	if n < 1 || n > MaxHosts {
		return nil, fmt.Errorf("%d hosts: want 1 to %d", n, MaxHosts)
	}
	if slices.Contains(namespaces(), HostsID+"_sw") {
		return nil, errors.New("hosts are up already: take them down first with hopbench hosts down")
	}
	return newLab(HostsID, n)
}

// RemoveHosts removes the lab of hopbench hosts up, also one whose
// process died half-way: it kills every process left in its namespaces
// (agents, and the nodes and brokers they started), then removes the
// namespaces and links. It returns how many namespaces it removed.
func RemoveHosts() (int, error) {
	var errs []error
	removed := 0
	for _, ns := range namespaces() {
		if !strings.HasPrefix(ns, HostsID+"_") {
			continue
		}
		removed++
		for _, pid := range NamespacePIDs(ns) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	errs = append(errs, removeLab(HostsID))
	return removed, errors.Join(errs...)
}

// NamespacePIDs are the processes in the network namespace ns (ip netns
// pids); none when it does not exist.
func NamespacePIDs(ns string) []int {
	var pids []int
	for _, pid := range column(0, "netns", "pids", ns) {
		if n, err := strconv.Atoi(pid); err == nil && n > 1 {
			pids = append(pids, n)
		}
	}
	return pids
}

// Namespaces are the names of the lab's namespaces: the switch's and each
// host's.
func (l *Lab) Namespaces() []string {
	out := []string{l.switchNS()}
	for _, h := range l.hosts {
		out = append(out, h.NS)
	}
	return out
}

// Subnet is the lab's /24.
func (l *Lab) Subnet() string { return fmt.Sprintf("10.231.%d.0/24", l.subnet) }

func newLab(id string, n int) (*Lab, error) {
	if n < 1 || n > 200 {
		return nil, fmt.Errorf("network: %d hosts: want 1 to 200", n)
	}
	l := &Lab{id: id}
	var err error
	if l.subnet, err = freeSubnet(); err != nil {
		return nil, err
	}
	l.Here = fmt.Sprintf("10.231.%d.1", l.subnet)
	if err := l.attach("", l.id+"_r", l.Here, l.id+"_s"); err != nil {
		l.Close()
		return nil, err
	}
	for i := range n {
		h := &Host{NS: fmt.Sprintf("%s_%d", l.id, i), Addr: fmt.Sprintf("10.231.%d.%d", l.subnet, 10+i)}
		if err := run("ip", "netns", "add", h.NS); err != nil {
			l.Close()
			return nil, err
		}
		l.hosts = append(l.hosts, h)
		if err := l.attach(h.NS, fmt.Sprintf("%s_h%d", l.id, i), h.Addr, fmt.Sprintf("%s_p%d", l.id, i)); err != nil {
			l.Close()
			return nil, err
		}
	}
	return l, nil
}

// Hosts are the lab's hosts, in the order made.
func (l *Lab) Hosts() []*Host { return l.hosts }

// Addrs are the lab's addresses, here's and each host's, for certificates
// that name them; none for no lab.
func (l *Lab) Addrs() []net.IP {
	if l == nil {
		return nil
	}
	ips := []net.IP{net.ParseIP(l.Here)}
	for _, h := range l.hosts {
		ips = append(ips, net.ParseIP(h.Addr))
	}
	return ips
}

func (l *Lab) switchNS() string { return l.id + "_sw" }

// attach joins namespace ns ("" for this one) to the switch, made first if
// need be: a veth whose end dev (with address addr) is in ns and whose
// other end port is on the bridge.
func (l *Lab) attach(ns, dev, addr, port string) error {
	sw := l.switchNS()
	if len(l.ends) == 0 {
		err := runAll([]string{"ip", "netns", "add", sw}, []string{"ip", "-n", sw, "link", "add", "name", "hbbridge", "type", "bridge"},
			[]string{"ip", "-n", sw, "link", "set", "dev", "hbbridge", "up"})
		if err != nil {
			return err
		}
	}
	in := func(args ...string) []string {
		if ns == "" {
			return append([]string{"ip"}, args...)
		}
		return append([]string{"ip", "-n", ns}, args...)
	}
	cmds := [][]string{{"ip", "link", "add", "name", dev, "type", "veth", "peer", "name", port, "netns", sw}}
	if ns != "" {
		cmds = append(cmds, []string{"ip", "link", "set", "dev", dev, "netns", ns}, in("link", "set", "dev", "lo", "up"))
	}
	cmds = append(cmds, in("addr", "add", addr+"/24", "dev", dev), in("link", "set", "dev", dev, "up"),
		[]string{"ip", "-n", sw, "link", "set", "dev", port, "master", "hbbridge", "up"})
	if err := runAll(cmds...); err != nil {
		return err
	}
	l.ends = append(l.ends, end{ns, dev}, end{sw, port})
	return nil
}

// Shape puts p on every veth end of the lab, replacing what was there; a
// loopback p leaves them unshaped. Half the delay goes on each end (a path
// crosses two veths) through netem, the bandwidth through tbf under it.
func (l *Lab) Shape(p Profile) error {
	for _, e := range l.ends {
		tc := func(args ...string) []string {
			if e.ns == "" {
				return append([]string{"tc"}, args...)
			}
			return append([]string{"tc", "-n", e.ns}, args...)
		}
		run(tc("qdisc", "del", "dev", e.dev, "root")...) // none there is no error worth one
		if err := runAll(shaping(tc, e.dev, p)...); err != nil {
			return err
		}
	}
	return nil
}

func shaping(tc func(...string) []string, dev string, p Profile) [][]string {
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
	return cmds
}

func usec(d time.Duration) string { return strconv.FormatInt(d.Microseconds(), 10) + "us" }

// Close removes everything the lab made: its namespaces, and with them
// the veths (a veth goes when either end's namespace does).
func (l *Lab) Close() error { return removeLab(l.id) }

// removeLab removes every namespace and link of the lab id, also those
// of a lab that failed half-made.
func removeLab(id string) error {
	var errs []error
	for _, ns := range namespaces() {
		if strings.HasPrefix(ns, id+"_") {
			errs = append(errs, run("ip", "netns", "del", ns))
		}
	}
	for _, dev := range links() {
		if strings.HasPrefix(dev, id+"_") {
			if err := run("ip", "link", "del", dev); err != nil && !strings.Contains(err.Error(), "Cannot find device") {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// namespaces are this machine's named network namespaces (ip netns list).
func namespaces() []string { return column(0, "netns", "list") }

// links are this namespace's interfaces (ip -o link show), each name's
// "@peer" and ":" cut.
func links() []string {
	names := column(1, "-o", "link", "show")
	for i, n := range names {
		names[i], _, _ = strings.Cut(strings.TrimSuffix(n, ":"), "@")
	}
	return names
}

// column is the i-th word of each line ip args prints.
func column(i int, args ...string) []string {
	out, _ := exec.Command("ip", args...).Output()
	var words []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > i {
			words = append(words, f[i])
		}
	}
	return words
}

// CleanStale removes the labs of hopbench processes that are gone (killed
// before they could close them); a lab's names carry its process's PID.
func CleanStale() error {
	if _, err := exec.LookPath("ip"); err != nil {
		return nil // no iproute2: no lab was ever made
	}
	var errs []error
	seen := map[string]bool{}
	for _, name := range append(namespaces(), links()...) {
		id, _, ok := strings.Cut(name, "_")
		if !ok || seen[id] || !strings.HasPrefix(id, labPrefix) || id == HostsID {
			continue
		}
		seen[id] = true
		if pid, err := strconv.ParseInt(strings.TrimPrefix(id, labPrefix), 36, 64); err == nil && !alive(int(pid)) {
			errs = append(errs, removeLab(id))
		}
	}
	return errors.Join(errs...)
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// IsLoopbackHost says whether host, a name or an address, is this
// machine's loopback: localhost, 127.0.0.0/8 or ::1.
func IsLoopbackHost(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}

// IsLab reports whether ip is on a lab of this machine: in 10.231.0.0/16
// and on a subnet one of this namespace's interfaces is on (the lab's
// own: a host's, or this machine's attachment).
func IsLab(ip net.IP) bool {
	if ip == nil || !labRange.Contains(ip) {
		return false
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && labRange.Contains(n.IP) && n.Contains(ip) {
			return true
		}
	}
	return false
}

var labRange = &net.IPNet{IP: net.IPv4(10, 231, 0, 0), Mask: net.CIDRMask(16, 32)}

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

// ListenPacket opens a UDP socket inside h's namespace, to dial QUIC from.
func (h *Host) ListenPacket(ctx context.Context) (net.PacketConn, error) {
	return inside(h, func() (net.PacketConn, error) {
		var lc net.ListenConfig
		return lc.ListenPacket(ctx, "udp", h.Addr+":0")
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
