// Package brokertest starts real brokers for tests: each on free loopback
// ports with its data in a temporary directory, stopped when the test or
// the package's tests end.
package brokertest

import (
	"context"
	"encoding/hex"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/hopbench/hopbench/internal/broker"
	"github.com/hopbench/hopbench/internal/certs"
)

// Config is a broker Config on a free port in t's temporary directory, NATS
// in process (a test binary is not hopbench).
func Config(t testing.TB) broker.Config {
	t.Helper()
	addr, err := FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	return broker.Config{Dir: t.TempDir(), Addr: addr, InProcess: true}
}

// FreeAddr is a loopback address with a port free right now.
func FreeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// Main starts the named brokers for a whole test package, runs its tests
// and stops them: call it from TestMain. Their addresses are in Addrs.
// NATS runs in process unless bin (a hopbench binary) is given.
func Main(m *testing.M, bin string, names ...string) {
	os.Exit(run(m, bin, names))
}

// Addrs are the addresses of the brokers Main started, by name; TLSAddrs
// their TLS listeners, which require a client certificate of TLS. Fake is
// true when Kafka is franz-go's kfake (under -short), which has no TLS
// listener and is no Kafka to measure or to kill.
var (
	Addrs    = map[string]string{}
	TLSAddrs = map[string]string{}
	TLS      *certs.Bundle
	Fake     bool
)

func run(m *testing.M, bin string, names []string) int {
	flag.Parse()
	if testing.Short() {
		// -short runs on a machine with nothing but Go: RabbitMQ, Redis and
		// Mosquitto are real processes (Debian's packages), so their
		// packages' tests wait for make test; Kafka's run against
		// franz-go's in-process fake, kfake (never for measuring); NATS
		// runs in process.
		for name, product := range map[string]string{"rabbitmq": "RabbitMQ", "redis": "Redis", "mosquitto": "Mosquitto"} {
			if slices.Contains(names, name) {
				fmt.Printf("brokertest: -short: skipping this package's tests, which need %s (make test runs them)\n", product)
				return 0
			}
		}
		if slices.Contains(names, "kafka") {
			// Bodies up to hopbench's 64 MiB limit, as the real broker takes.
			fake, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.BrokerConfigs(map[string]string{"message.max.bytes": strconv.Itoa(64<<20 + 1<<20)}))
			if err != nil {
				fmt.Fprintln(os.Stderr, "brokertest: kfake:", err)
				return 1
			}
			defer fake.Close()
			Addrs["kafka"], Fake = fake.ListenAddrs()[0], true
			names = slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == "kafka" })
		}
	}
	dir, err := os.MkdirTemp("", "hopbench-brokers-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	tlsDir := filepath.Join(dir, "tls")
	if TLS, err = certs.LoadOrCreate(tlsDir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for _, name := range names {
		addr, err := FreeAddr()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		b, err := broker.Start(context.Background(), name, broker.Config{Dir: dir, Addr: addr, Bin: bin, InProcess: bin == "", TLSDir: tlsDir, MTLS: true})
		if err != nil {
			fmt.Fprintln(os.Stderr, "brokertest:", err)
			return 1
		}
		defer b.Close()
		Addrs[name], TLSAddrs[name] = b.Addr, b.TLSAddr
	}
	return m.Run()
}

// Listening lists the TCP addresses pid listens on, from /proc, as
// "127.0.0.1:5672" or "[::]:4222".
func Listening(pid int) ([]string, error) {
	inodes := map[string]bool{}
	fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
	for _, fd := range fds {
		if l, err := os.Readlink(fd); err == nil && strings.HasPrefix(l, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	var out []string
	for _, table := range []string{"tcp", "tcp6"} {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, table))
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "0A" || !inodes[f[9]] { // 0A: LISTEN
				continue
			}
			out = append(out, hexAddr(f[1]))
		}
	}
	return out, nil
}

// hexAddr reads /proc/net/tcp's "0100007F:1F90" (or its IPv6 form).
func hexAddr(s string) string {
	host, port, _ := strings.Cut(s, ":")
	p, _ := strconv.ParseUint(port, 16, 16)
	b, _ := hex.DecodeString(host)
	for i := 0; i+4 <= len(b); i += 4 { // each 32-bit word is little-endian
		b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
	}
	return net.JoinHostPort(net.IP(b).String(), strconv.FormatUint(p, 10))
}
