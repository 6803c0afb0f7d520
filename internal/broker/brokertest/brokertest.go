// Package brokertest starts real brokers for tests: each on free loopback
// ports with its data in a temporary directory, stopped when the test or
// the package's tests end.
package brokertest

import (
	"context"
	"fmt"
	"net"
	"os"
	"testing"

	"github.com/hopbench/hopbench/internal/broker"
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

// Addrs are the addresses of the brokers Main started, by name.
var Addrs = map[string]string{}

func run(m *testing.M, bin string, names []string) int {
	dir, err := os.MkdirTemp("", "hopbench-brokers-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	for _, name := range names {
		addr, err := FreeAddr()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		b, err := broker.Start(context.Background(), name, broker.Config{Dir: dir, Addr: addr, Bin: bin, InProcess: bin == ""})
		if err != nil {
			fmt.Fprintln(os.Stderr, "brokertest:", err)
			return 1
		}
		defer b.Close()
		Addrs[name] = b.Addr
	}
	return m.Run()
}
