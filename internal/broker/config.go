package broker

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hopbench/hopbench/internal/lease"
	"github.com/hopbench/hopbench/internal/network"
)

// Config says where a broker lives and how it is started.
type Config struct {
	// Dir is the data root; each broker keeps its data, log and state in
	// Dir/<name>. Default: DefaultDir().
	Dir string
	// Addr is the host:port clients connect to (default DefaultAddr).
	Addr string
	// Bin is the hopbench binary, which runs the NATS broker in a process of
	// its own (default: this executable).
	Bin string
	// InProcess runs NATS inside this process instead (tests whose binary
	// is not hopbench); other brokers ignore it.
	InProcess bool
	// KafkaLibs is the directory of the Kafka broker jars (default:
	// FindKafkaLibs()).
	KafkaLibs string
	// Detach leaves the broker running when this process exits, for
	// hopbench brokers up; otherwise it dies with this process.
	Detach bool
	// ReadyTimeout bounds the wait for a started broker to answer
	// (default 90s: RabbitMQ takes about 3-8s, Kafka 3s, NATS none).
	ReadyTimeout time.Duration
	// TLSDir, if set, starts the broker with a TLS listener beside its
	// plain one, with the certificates of this directory (made there if
	// missing: the same bundle hopbench node --tls-dir uses). A broker
	// found running must take TLS at TLSAddr with them.
	TLSDir string
	// TLSAddr is the TLS listener's address (default DefaultTLSAddr, or a
	// free port when Addr is not the default; NATS: Addr).
	TLSAddr string
	// MTLS makes the TLS listener require client certificates signed by
	// TLSDir's CA.
	MTLS bool
	// Notify, if set, hears what the broker waits for: another process
	// starting it, or using it when this one would stop it.
	Notify func(msg string)
	// Force lets Down stop a broker other hopbench processes are using.
	Force bool
	// OnHost marks a broker an agent starts on its host, on the address it
	// advertises: any address of the host's own interfaces is taken (a
	// pod's, a host's on a cluster's network), never another machine's.
	OnHost bool
}

func (c Config) notify(format string, args ...any) {
	if c.Notify != nil {
		c.Notify(fmt.Sprintf(format, args...))
	}
}

// usersDir is where the processes using the broker at addr hold their
// leases: one place per address for every process of this user, whatever
// its data directory.
func usersDir(name, addr string) string {
	return filepath.Join(lease.Root(), "brokers", name+"-"+strings.NewReplacer(":", "_", "/", "_").Replace(addr))
}

// DefaultDir is HOPBENCH_HOME/brokers, or .hopbench/brokers in the current
// directory.
func DefaultDir() string {
	if home := os.Getenv("HOPBENCH_HOME"); home != "" {
		return filepath.Join(home, "brokers")
	}
	return filepath.Join(".hopbench", "brokers")
}

func (c Config) withDefaults(name string) (Config, error) {
	if !slices.Contains(Names, name) {
		return c, fmt.Errorf("unknown broker %q (known: %s)", name, strings.Join(Names, ", "))
	}
	if c.Dir == "" {
		c.Dir = DefaultDir()
	}
	abs, err := filepath.Abs(filepath.Join(c.Dir, name))
	if err != nil {
		return c, err
	}
	c.Dir = abs
	if c.Addr == "" {
		c.Addr = DefaultAddr[name]
	}
	if err := c.checkAddr(c.Addr); err != nil {
		return c, fmt.Errorf("%s: %w", name, err)
	}
	if c.ReadyTimeout <= 0 {
		c.ReadyTimeout = 90 * time.Second
	}
	return c.withTLSDefaults(name)
}

// withTLSDefaults resolves the TLS directory and address, when TLS is on.
func (c Config) withTLSDefaults(name string) (Config, error) {
	if c.TLSDir == "" {
		if c.MTLS {
			return c, fmt.Errorf("%s: mutual TLS needs the certificates' directory (--tls-dir)", name)
		}
		c.TLSAddr = ""
		return c, nil
	}
	dir, err := filepath.Abs(c.TLSDir)
	if err != nil {
		return c, err
	}
	c.TLSDir = dir
	switch {
	case name == "nats" && !c.MTLS:
		c.TLSAddr = c.Addr // TLS beside plain clients on one port
	case c.TLSAddr != "":
	case c.Addr == DefaultAddr[name]:
		c.TLSAddr = DefaultTLSAddr[name]
	default: // beside Addr, on a free port
		port, err := freePort()
		if err != nil {
			return c, err
		}
		host, _, _ := net.SplitHostPort(c.Addr)
		c.TLSAddr = net.JoinHostPort(host, strconv.Itoa(port))
	}
	if err := c.checkAddr(c.TLSAddr); err != nil {
		return c, fmt.Errorf("%s TLS: %w", name, err)
	}
	return c, nil
}

// checkAddr refuses addresses off this machine: checkLoopback's, or for a
// broker an agent starts (OnHost), any address of this host's own.
func (c Config) checkAddr(addr string) error {
	if c.OnHost && isOwn(addr) {
		return nil
	}
	return checkLoopback(addr)
}

// isOwn reports whether addr's host is an address of one of this host's
// interfaces (in this network namespace).
func isOwn(addr string) bool {
	host, _, _ := net.SplitHostPort(addr)
	ip := net.ParseIP(host)
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && ip != nil && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}

// checkLoopback refuses addresses off this machine: hopbench's traffic
// stays on loopback, or on the hosts of a kernel-emulated network it made
// here.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("address %q: want host:port, e.g. 127.0.0.1:5672", addr)
	}
	if !network.IsLoopbackHost(host) && !network.IsLab(net.ParseIP(host)) {
		return fmt.Errorf("address %q is not on loopback: hopbench runs brokers and their clients on this machine only (use 127.0.0.1)", addr)
	}
	return nil
}

// stablePortsFrom is the lowest port stablePort chooses from.
const stablePortsFrom = 20000

// stablePort is a free port below the kernel's ephemeral range
// (ip_local_port_range), for an address advertised before anything
// listens on it (Kafka's proxy front): the kernel gives no connection's
// local end nor any port-0 listener a port there, so it stays free until
// its listener comes, unless a process asks for it by number.
func stablePort() (int, error) {
	below := ephemeralPortsFrom()
	if below-stablePortsFrom < 1000 {
		return freePort() // no room below the range: any free port
	}
	for range 100 {
		p := stablePortsFrom + rand.IntN(below-stablePortsFrom)
		if l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p))); err == nil {
			l.Close()
			return p, nil
		}
	}
	return 0, fmt.Errorf("no free port in 100 tries between %d and %d, below the ephemeral ports: free some, or lower net.ipv4.ip_local_port_range's start", stablePortsFrom, below)
}

// ephemeralPortsFrom is where the kernel's ephemeral ports start
// (ip_local_port_range), or Linux's default where that cannot be read.
func ephemeralPortsFrom() int {
	from := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		fmt.Sscan(string(b), &from)
	}
	return from
}

// freePort returns a loopback port free right now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
