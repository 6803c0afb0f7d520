package wire

import (
	"context"
	"errors"
	"net"
)

// PacketConn wraps a UDP socket so that its datagrams' bytes are added to
// the counter: QUIC's packets, under its encryption and framing, as Conn
// counts TCP's payload under TLS.
func (c *Counter) PacketConn(pc net.PacketConn) net.PacketConn {
	c.conns.Add(1)
	return &countingPacketConn{PacketConn: pc, c: c}
}

type countingPacketConn struct {
	net.PacketConn
	c *Counter
}

func (pc *countingPacketConn) ReadFrom(p []byte) (int, net.Addr, error) {
	n, addr, err := pc.PacketConn.ReadFrom(p)
	pc.c.read.Add(int64(n))
	return n, addr, err
}

func (pc *countingPacketConn) WriteTo(p []byte, addr net.Addr) (int, error) {
	n, err := pc.PacketConn.WriteTo(p, addr)
	pc.c.written.Add(int64(n))
	return n, err
}

// ListenPacket opens a UDP socket to dial QUIC from, its bytes counted in
// Counter as they cross the real socket; with a Network profile each
// datagram is then shaped by it, as a TCP connection is.
func (d *Dialer) ListenPacket(ctx context.Context) (net.PacketConn, error) {
	var pc net.PacketConn
	var err error
	if d.From != nil {
		pc, err = d.From.ListenPacket(ctx)
	} else {
		var lc net.ListenConfig
		pc, err = lc.ListenPacket(ctx, "udp", ":0") // any address: the kernel routes each datagram, to loopback or a lab of its own
	}
	if err != nil {
		return nil, err
	}
	return d.Network.Packets(d.Counter.PacketConn(pc)), nil
}

// SetReadBuffer and SetWriteBuffer size the socket's buffers, as QUIC
// asks of a UDP socket (without them quic-go warns and keeps the
// system's defaults).
func (pc *countingPacketConn) SetReadBuffer(n int) error {
	if s, ok := pc.PacketConn.(interface{ SetReadBuffer(int) error }); ok {
		return s.SetReadBuffer(n)
	}
	return errors.ErrUnsupported
}

func (pc *countingPacketConn) SetWriteBuffer(n int) error {
	if s, ok := pc.PacketConn.(interface{ SetWriteBuffer(int) error }); ok {
		return s.SetWriteBuffer(n)
	}
	return errors.ErrUnsupported
}
