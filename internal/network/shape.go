package network

import (
	"context"
	"math/rand/v2"
	"net"
	"sync"
	"time"
)

// Connect shapes a connection just dialled: it pays one round trip first,
// as a TCP handshake does before the first byte can follow it, and then
// each direction is delayed and paced by p. A loopback p returns conn as
// it is.
//
// Why not a library: toxiproxy shapes a hop by proxying it, which puts a
// second TCP connection and its copies on every hop, their CPU landing in
// the figures of a two-core machine; grpc-go's benchmark/latency frames the
// stream and so needs both ends wrapped, and a broker's end is RabbitMQ's
// or Kafka's. Shaping the dialling end only needs hopbench's own dialer,
// which every stack already uses (the conformance suite checks it).
func (p Profile) Connect(ctx context.Context, conn net.Conn) (net.Conn, error) {
	if p.IsLoopback() {
		return conn, nil
	}
	t := time.NewTimer(p.RTT())
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		conn.Close()
		return nil, ctx.Err()
	}
	return p.Shape(conn), nil
}

// Shape returns conn with p applied to both directions. What the caller
// writes reaches conn after its transmission time at p's bandwidth,
// queued behind what was written before, and p's delay; what arrives on
// conn is read after the same. The caller gets one end of a net.Pipe
// (deadlines are the pipe's) and two pumps move bytes between it and conn;
// closing it sends what is queued (for at most drainLimit), then closes
// conn.
func (p Profile) Shape(conn net.Conn) net.Conn {
	learnLeadOnce()
	app, inner := net.Pipe()
	go p.link().pump(conn, inner)
	go p.link().pump(inner, conn)
	return &shaped{Conn: app, raw: conn}
}

// drainLimit bounds how long a closed connection's queued bytes may take
// to leave: a peer that stopped reading cannot keep a pump for ever.
const drainLimit = 5 * time.Second

// shaped is the caller's end; it reports the real connection's addresses.
type shaped struct {
	net.Conn
	raw net.Conn
}

func (s *shaped) LocalAddr() net.Addr  { return s.raw.LocalAddr() }
func (s *shaped) RemoteAddr() net.Addr { return s.raw.RemoteAddr() }

// link is one direction of a connection.
type link struct {
	p    Profile
	rng  *rand.Rand
	free time.Time // when the bytes sent so far have left
	last time.Time // when the last chunk arrives: later ones never pass it
}

func (p Profile) link() *link {
	return &link{p: p, rng: rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))}
}

// chunkSize is the most bytes moved at once; at 1 Gbit/s they take 131 µs
// to leave, at 8 Mbit/s 16 ms.
const chunkSize = 16 << 10

var chunks = sync.Pool{New: func() any { return new([chunkSize]byte) }}

type chunk struct {
	buf *[chunkSize]byte
	n   int
	due time.Time
}

// arrival is when n bytes read from the sender now reach the receiver.
func (l *link) arrival(now time.Time, n int) time.Time {
	l.free = later(now, l.free).Add(l.p.Bandwidth.transmit(n))
	delay := l.p.Delay
	if j := l.p.Jitter; j > 0 {
		delay += time.Duration(l.rng.Int64N(int64(2*j)+1)) - j
	}
	l.last = later(l.free.Add(delay), l.last)
	return l.last
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// pump moves bytes from src to dst, each chunk held until its arrival.
// When src ends, what is queued is delivered (within drainLimit) and dst
// is closed; when a write to dst fails, src is closed and the rest
// dropped.
func (l *link) pump(dst, src net.Conn) {
	q := make(chan chunk, 64) // bounded: a full queue stops reading src, as TCP's window would
	go func() {
		defer close(q)
		for {
			c := chunk{buf: chunks.Get().(*[chunkSize]byte)}
			var err error
			c.n, err = src.Read(c.buf[:])
			if c.n > 0 {
				c.due = l.arrival(time.Now(), c.n)
				q <- c
			} else {
				chunks.Put(c.buf)
			}
			if err != nil {
				dst.SetWriteDeadline(time.Now().Add(drainLimit))
				return
			}
		}
	}()
	var failed error
	for c := range q {
		if failed == nil {
			failed = deliver(dst, c)
		}
		chunks.Put(c.buf)
		if failed != nil {
			src.Close() // the reader ends, and the queue with it
		}
	}
	dst.Close()
}

// deliver writes c to dst at its arrival time.
func deliver(dst net.Conn, c chunk) error {
	sleepUntil(c.due)
	_, err := dst.Write(c.buf[:c.n])
	return err
}
