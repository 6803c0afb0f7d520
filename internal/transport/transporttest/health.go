package transporttest

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hopbench/hopbench/internal/transport"
)

// CheckHealth starts a server of a broker stack whose connections to the
// broker go through a dialer the test can cut, and checks that it says it
// is healthy, then, once every connection is closed and no new one can be
// made (the broker is unreachable), that it says it is not, naming why.
func CheckHealth(t *testing.T, name, addr string, cfg transport.Config) {
	t.Helper()
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	tr, err := transport.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	cut := &cuttingDialer{}
	cfg.Dialer = cut
	srv, err := tr.Listen(context.Background(), addr, cfg, transport.Handler{Bytes: handler})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	h, ok := srv.(transport.Healthy)
	if !ok {
		t.Fatalf("%s: its server does not say whether it can serve (transport.Healthy)", name)
	}
	if err := h.Health(); err != nil {
		t.Fatalf("%s: unhealthy while connected: %v", name, err)
	}
	cut.cut()
	deadline := time.Now().Add(20 * time.Second)
	for h.Health() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("%s: still healthy 20s after its broker connections were cut", name)
		}
		time.Sleep(50 * time.Millisecond)
	}
	err = h.Health()
	if transport.CodeOf(err) != transport.CodeUnavailable {
		t.Errorf("%s: health %v is not classified unavailable", name, err)
	}
	t.Logf("%s after the cut: %v", name, err)
}

// cuttingDialer dials loopback until cut, which closes every connection
// it made and refuses new ones.
type cuttingDialer struct {
	mu    sync.Mutex
	conns []net.Conn
	isCut bool
}

func (d *cuttingDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.isCut {
		return nil, errors.New("connection refused (cut by the test)")
	}
	var nd net.Dialer
	c, err := nd.DialContext(ctx, network, addr)
	if err == nil {
		d.conns = append(d.conns, c)
	}
	return c, err
}

func (d *cuttingDialer) cut() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.isCut = true
	for _, c := range d.conns {
		c.Close()
	}
}
