package proxy

import (
	"context"
	"net"
	"strings"
	"testing"
)

// A proxy whose address something else listens on is refused, naming
// it: HAProxy bound it beside the other (SO_REUSEPORT), so two runs'
// proxies took each other's traffic, and nginx, failing to bind, passed
// its readiness check by reaching the other's listener.
func TestAProxyOnATakenAddressIsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real HAProxy and nginx: make test runs it")
	}
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	for _, name := range Kinds() {
		t.Run(name, func(t *testing.T) {
			k, _ := Lookup(name)
			if err := Installed(k); err != nil {
				t.Skip(err)
			}
			leg := Leg{Mode: L4, Listen: other.Addr().String(), Upstream: other.Addr().String(), Dir: t.TempDir()}
			p, err := start(context.Background(), k, "test", leg)
			if err == nil {
				p.Close()
			}
			if err == nil || !strings.Contains(err.Error(), "is taken") {
				t.Errorf("a %s proxy on an address taken: %v, want it refused", name, err)
			}
		})
	}
}
