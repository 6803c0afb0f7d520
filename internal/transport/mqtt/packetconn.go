package mqtt

import (
	"bufio"
	"net"
	"sync"
)

// coalesceMax is the most of a packet packetConn gathers into one write;
// a larger part (a large body) is written on its own.
const coalesceMax = 64 << 10

// packetConn is the connection paho reads and writes through. paho reads a
// packet's header a byte at a time and writes a packet in four writes
// (fixed header, topic and id, properties, payload): on a bare connection
// each is a system call, and each write a TCP segment (and a TLS record)
// of its own, which took 39 % of a service's and caller's CPU in a
// profile here. Reads go through a buffer; a packet's writes, which paho
// makes holding the connection's lock (the sync.Locker it looks for, as
// packets.NewThreadSafeConn's), are gathered and written once when it lets
// go. A write that fails then closes the connection, so that paho's reader
// sees it lost, as it would have seen the failed write.
type packetConn struct {
	net.Conn
	r *bufio.Reader

	mu      sync.Mutex
	holding bool   // a packet is being written, under mu
	pending []byte // its parts so far
	err     error  // a failed write, returned from then on
}

func newPacketConn(c net.Conn) *packetConn {
	return &packetConn{Conn: c, r: bufio.NewReaderSize(c, 32<<10)}
}

func (c *packetConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// Lock starts a packet: its writes are gathered until Unlock.
func (c *packetConn) Lock() {
	c.mu.Lock()
	c.holding = true
}

// Unlock writes what the packet gathered and lets the next writer in.
func (c *packetConn) Unlock() {
	c.flush()
	c.holding = false
	c.mu.Unlock()
}

// Write gathers p into the packet being written, or writes it (with what
// is gathered before it) when it is large. paho v0.23.0 writes every
// packet through ControlPacket.WriteTo, under Lock.
func (c *packetConn) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if len(c.pending)+len(p) <= coalesceMax {
		c.pending = append(c.pending, p...)
		return len(p), nil
	}
	if err := c.flush(); err != nil {
		return 0, err
	}
	n, err := c.Conn.Write(p)
	if err != nil {
		c.fail(err)
	}
	return n, err
}

// flush writes what is gathered; mu is held.
func (c *packetConn) flush() error {
	if len(c.pending) == 0 || c.err != nil {
		c.pending = c.pending[:0]
		return c.err
	}
	_, err := c.Conn.Write(c.pending)
	c.pending = c.pending[:0]
	if err != nil {
		c.fail(err)
	}
	return err
}

func (c *packetConn) fail(err error) {
	c.err = err
	c.Conn.Close()
}
