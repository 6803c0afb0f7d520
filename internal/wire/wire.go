// Package wire counts every byte a stack puts on and takes off the wire. The
// counting sits on the TCP connection itself, under TLS and HTTP/2, so
// record and frame overhead is counted with the body.
package wire

import (
	"context"
	"net"
	"sync/atomic"

	"github.com/hopbench/hopbench/internal/network"
)

// Counter holds byte totals; safe for concurrent use.
type Counter struct {
	written, read atomic.Int64
	conns         atomic.Int64
}

// Totals is a snapshot of a Counter.
type Totals struct {
	Written int64 `json:"written"`
	Read    int64 `json:"read"`
	Conns   int64 `json:"conns"`
}

// Snapshot returns the totals so far.
func (c *Counter) Snapshot() Totals {
	return Totals{Written: c.written.Load(), Read: c.read.Load(), Conns: c.conns.Load()}
}

// Sub returns t minus an earlier snapshot: the bytes between the two.
func (t Totals) Sub(earlier Totals) Totals {
	return Totals{Written: t.Written - earlier.Written, Read: t.Read - earlier.Read, Conns: t.Conns - earlier.Conns}
}

// Conn wraps c so that its traffic is added to the counter.
func (c *Counter) Conn(conn net.Conn) net.Conn {
	c.conns.Add(1)
	return &countingConn{Conn: conn, c: c}
}

type countingConn struct {
	net.Conn
	c *Counter
}

func (cc *countingConn) Read(p []byte) (int, error) {
	n, err := cc.Conn.Read(p)
	cc.c.read.Add(int64(n))
	return n, err
}

// Write counts p before sending it, then takes back what a short write did
// not send: counting after would race with the reply, which can arrive and be
// read before the writing goroutine is scheduled again (grpc-go writes from
// its own goroutine), so a snapshot taken when a call returns would miss it.
func (cc *countingConn) Write(p []byte) (int, error) {
	cc.c.written.Add(int64(len(p)))
	n, err := cc.Conn.Write(p)
	if n < len(p) {
		cc.c.written.Add(int64(n - len(p)))
	}
	return n, err
}

// Dialer dials TCP and counts each connection's bytes in Counter. With a
// Network profile, each connection is then shaped by it (one round trip to
// open, delay and bandwidth each way); bytes are counted as they cross the
// real connection.
type Dialer struct {
	Counter *Counter
	Network network.Profile
	// From, if set, dials and opens UDP sockets instead of this process's
	// own network: from a host of a kernel-emulated network, say.
	From Origin
	net.Dialer
}

// Origin is somewhere else connections start from: a host of a
// kernel-emulated network (network.Host), which dials TCP and opens UDP
// sockets inside its namespace.
type Origin interface {
	DialContext(ctx context.Context, network, addr string) (net.Conn, error)
	ListenPacket(ctx context.Context) (net.PacketConn, error)
}

// DialContext dials and wraps the connection.
func (d *Dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	dial := d.Dialer.DialContext
	if d.From != nil {
		dial = d.From.DialContext
	}
	conn, err := dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return d.Network.Connect(ctx, d.Counter.Conn(conn))
}
