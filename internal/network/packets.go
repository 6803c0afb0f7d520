package network

import (
	"net"
	"os"
	"sync"
	"time"
)

// Packets shapes a UDP socket as Shape does a connection, for QUIC: each
// datagram it sends leaves after its transmission time at p's bandwidth,
// queued behind those before it, and p's delay (with jitter: datagrams may
// then arrive out of order, as on a network); each it receives is read
// after the same. None is dropped (loss is not emulated): a full queue
// holds the sender back, as a full TCP window does. A loopback p returns
// pc as it is.
func (p Profile) Packets(pc net.PacketConn) net.PacketConn {
	if p.IsLoopback() {
		return pc
	}
	learnLeadOnce()
	s := &shapedPackets{PacketConn: pc, send: p.link(), recv: p.link(),
		out: make(chan datagram, packetQueue), in: make(chan datagram, packetQueue), done: make(chan struct{}), wake: make(chan struct{})}
	s.wg.Add(2)
	go s.sendLoop()
	go s.recvLoop()
	return s
}

// packetQueue bounds the datagrams queued each way (about 1.4 MB of
// QUIC's 1 400-byte packets).
const packetQueue = 1024

type datagram struct {
	b    []byte
	addr net.Addr
	due  time.Time
}

type shapedPackets struct {
	net.PacketConn
	send, recv *link
	mu         sync.Mutex // guards send's and recv's clocks, deadline and wake
	deadline   time.Time
	wake       chan struct{} // closed when the deadline changes
	out, in    chan datagram
	done       chan struct{}
	once       sync.Once
	wg         sync.WaitGroup
}

func (s *shapedPackets) WriteTo(b []byte, addr net.Addr) (int, error) {
	s.mu.Lock()
	d := datagram{b: append([]byte(nil), b...), addr: addr, due: s.send.arrival(time.Now(), len(b))}
	s.mu.Unlock()
	select {
	case s.out <- d:
		return len(b), nil
	case <-s.done:
		return 0, net.ErrClosed
	}
}

func (s *shapedPackets) sendLoop() {
	defer s.wg.Done()
	for {
		select {
		case d := <-s.out:
			sleepUntil(d.due)
			s.PacketConn.WriteTo(d.b, d.addr) // a lost datagram is QUIC's to resend
		case <-s.done:
			return
		}
	}
}

func (s *shapedPackets) recvLoop() {
	defer s.wg.Done()
	defer close(s.in)
	buf := make([]byte, 64<<10)
	for {
		n, addr, err := s.PacketConn.ReadFrom(buf)
		if err != nil {
			return
		}
		s.mu.Lock()
		d := datagram{b: append([]byte(nil), buf[:n]...), addr: addr, due: s.recv.arrival(time.Now(), n)}
		s.mu.Unlock()
		select {
		case s.in <- d:
		case <-s.done:
			return
		}
	}
}

// ReadFrom returns the next datagram once it has arrived, or fails at
// the read deadline (moved while it waits, too) or when the socket is
// closed.
func (s *shapedPackets) ReadFrom(b []byte) (int, net.Addr, error) {
	for {
		s.mu.Lock()
		deadline, wake := s.deadline, s.wake
		s.mu.Unlock()
		var expired <-chan time.Time
		if !deadline.IsZero() {
			t := time.NewTimer(time.Until(deadline))
			defer t.Stop()
			expired = t.C
		}
		select {
		case d, ok := <-s.in:
			if !ok {
				return 0, nil, net.ErrClosed
			}
			sleepUntil(d.due)
			return copy(b, d.b), d.addr, nil
		case <-expired:
			return 0, nil, os.ErrDeadlineExceeded
		case <-wake:
		case <-s.done:
			return 0, nil, net.ErrClosed
		}
	}
}

func (s *shapedPackets) SetReadDeadline(t time.Time) error {
	s.mu.Lock()
	s.deadline = t
	close(s.wake)
	s.wake = make(chan struct{})
	s.mu.Unlock()
	return nil
}

func (s *shapedPackets) SetDeadline(t time.Time) error {
	s.SetReadDeadline(t)
	return s.PacketConn.SetWriteDeadline(t)
}

// SetReadBuffer and SetWriteBuffer size the real socket's buffers, as QUIC
// asks.
func (s *shapedPackets) SetReadBuffer(n int) error {
	if r, ok := s.PacketConn.(interface{ SetReadBuffer(int) error }); ok {
		return r.SetReadBuffer(n)
	}
	return nil
}

func (s *shapedPackets) SetWriteBuffer(n int) error {
	if r, ok := s.PacketConn.(interface{ SetWriteBuffer(int) error }); ok {
		return r.SetWriteBuffer(n)
	}
	return nil
}

// Close closes the socket; what is queued is dropped, as a socket's
// buffers are when it closes.
func (s *shapedPackets) Close() error {
	var err error
	s.once.Do(func() {
		close(s.done)
		err = s.PacketConn.Close()
		s.wg.Wait()
	})
	return err
}
