package network

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"time"
)

// Mechanisms that emulate a profile.
const (
	InProcess = "in-process"
	Kernel    = "kernel"
)

// CheckMode refuses a mechanism other than in-process and kernel.
func CheckMode(mode string) error {
	if mode != InProcess && mode != Kernel {
		return fmt.Errorf("%q: want in-process or kernel", mode)
	}
	return nil
}

// Measured is what a profile gave on the emulated path, measured before a
// run: what the run's figures were made under, whatever was asked.
type Measured struct {
	Profile   string `json:"profile"`
	Mechanism string `json:"mechanism"`
	// RTTUs is the median of pingCount one-byte round trips on one
	// connection, its handshake excluded.
	RTTUs float64 `json:"rtt_us"`
	// DatagramRTTUs is the same over datagrams, through a UDP socket
	// shaped as QUIC's are: in process only (kernel emulation shapes
	// every packet alike).
	DatagramRTTUs float64 `json:"datagram_rtt_us,omitempty"`
	// Mbit is the throughput of a bulk transfer one way, its last byte's
	// acknowledgement less one round trip (Mbit/s).
	Mbit float64 `json:"throughput_mbit"`
	// Bytes is the bulk transfer's size.
	Bytes int64 `json:"bulk_bytes"`
}

func (m Measured) String() string {
	s := fmt.Sprintf("%s (%s): round trip %.3f ms", m.Profile, m.Mechanism, m.RTTUs/1000)
	if m.DatagramRTTUs > 0 {
		s += fmt.Sprintf(" (%.3f ms over datagrams)", m.DatagramRTTUs/1000)
	}
	return s + fmt.Sprintf(", %.1f Mbit/s measured", m.Mbit)
}

// pingCount is the round trips whose median is taken.
const pingCount = 11

// bulkBytes sizes the bulk transfer to about a quarter second at p's
// bandwidth, between 64 KiB and 16 MiB (16 MiB with no cap).
func bulkBytes(p Profile) int64 {
	if p.Bandwidth == 0 {
		return 16 << 20
	}
	return min(max(int64(p.Bandwidth)/8/4, 64<<10), 16<<20)
}

// Measure times round trips and a bulk transfer on a connection shaped by
// p to an echo service of its own on loopback, as the run's connections
// will be shaped.
func Measure(ctx context.Context, p Profile) (Measured, error) {
	listen := func() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }
	dial := func(ctx context.Context, addr string) (net.Conn, error) {
		var d net.Dialer
		raw, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return nil, err
		}
		return p.Connect(ctx, raw)
	}
	m, err := measure(ctx, Measured{Profile: p.String(), Mechanism: InProcess, Bytes: bulkBytes(p)}, listen, dial)
	if err != nil {
		return m, err
	}
	if m.DatagramRTTUs, err = pingDatagrams(ctx, p); err != nil {
		return m, fmt.Errorf("network: measuring %s over datagrams: %w", m.Profile, err)
	}
	return m, nil
}

// MeasureKernel times the same between two hosts of a lab shaped by p:
// from the first, to a service on the second.
func MeasureKernel(ctx context.Context, p Profile, from, to *Host) (Measured, error) {
	listen := func() (net.Listener, error) { return to.Listen(to.Addr + ":0") }
	dial := func(ctx context.Context, addr string) (net.Conn, error) { return from.DialContext(ctx, "tcp", addr) }
	return measure(ctx, Measured{Profile: p.String(), Mechanism: Kernel, Bytes: bulkBytes(p)}, listen, dial)
}

func measure(ctx context.Context, m Measured, listen func() (net.Listener, error), dial func(context.Context, string) (net.Conn, error)) (Measured, error) {
	ln, err := listen()
	if err != nil {
		return m, fmt.Errorf("network: measuring %s: %w", m.Profile, err)
	}
	defer ln.Close()
	served := make(chan error, 1)
	go func() { served <- serveProbe(ln) }()
	err = probe(ctx, ln.Addr().String(), dial, &m)
	ln.Close()
	if serr := <-served; err == nil && serr != nil {
		err = serr
	}
	if err != nil {
		return m, fmt.Errorf("network: measuring %s: %w", m.Profile, err)
	}
	return m, nil
}

// probe's protocol: 'p' is answered 'p'; 'b' and an 8-byte length are
// answered 'k' once that many bytes more have come.
func probe(ctx context.Context, addr string, dial func(context.Context, string) (net.Conn, error), m *Measured) error {
	conn, err := dial(ctx, addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	one := make([]byte, 1)
	rtts := make([]time.Duration, pingCount)
	for i := range rtts {
		start := time.Now()
		if err := exchange(conn, []byte{'p'}, one); err != nil {
			return err
		}
		rtts[i] = time.Since(start)
	}
	m.RTTUs = medianUs(rtts)
	head := binary.BigEndian.AppendUint64([]byte{'b'}, uint64(m.Bytes))
	start := time.Now()
	if err := exchange(conn, append(head, make([]byte, m.Bytes)...), one); err != nil {
		return err
	}
	took := time.Since(start) - time.Duration(m.RTTUs*1e3)
	m.Mbit = float64(m.Bytes) * 8 / max(took.Seconds(), 1e-9) / 1e6
	return nil
}

func exchange(conn net.Conn, send, reply []byte) error {
	if _, err := conn.Write(send); err != nil {
		return err
	}
	_, err := io.ReadFull(conn, reply)
	return err
}

// serveProbe answers one probing connection.
func serveProbe(ln net.Listener) error {
	conn, err := ln.Accept()
	if err != nil {
		return nil // closed before the probe dialled: probe says why
	}
	defer conn.Close()
	op := make([]byte, 1)
	for {
		if _, err := io.ReadFull(conn, op); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if op[0] == 'b' {
			var n [8]byte
			if _, err := io.ReadFull(conn, n[:]); err != nil {
				return err
			}
			if _, err := io.CopyN(io.Discard, conn, int64(binary.BigEndian.Uint64(n[:]))); err != nil {
				return err
			}
			op[0] = 'k'
		}
		if _, err := conn.Write(op); err != nil {
			return err
		}
	}
}

func medianUs(d []time.Duration) float64 {
	slices.Sort(d)
	return float64(d[len(d)/2].Nanoseconds()) / 1e3
}

// pingDatagrams is the median of pingCount round trips of a one-byte
// datagram from a socket shaped by p to an echo of its own on loopback.
func pingDatagrams(ctx context.Context, p Profile) (float64, error) {
	echo, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer echo.Close()
	go func() {
		buf := make([]byte, 1)
		for {
			n, addr, err := echo.ReadFrom(buf)
			if err != nil {
				return
			}
			echo.WriteTo(buf[:n], addr)
		}
	}()
	raw, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	pc := p.Packets(raw)
	defer pc.Close()
	deadline := time.Now().Add(10 * time.Second)
	if dl, ok := ctx.Deadline(); ok {
		deadline = dl
	}
	pc.SetDeadline(deadline)
	rtts := make([]time.Duration, pingCount)
	buf := make([]byte, 1)
	for i := range rtts {
		start := time.Now()
		if _, err := pc.WriteTo([]byte{'p'}, echo.LocalAddr()); err != nil {
			return 0, err
		}
		if _, _, err := pc.ReadFrom(buf); err != nil {
			return 0, err
		}
		rtts[i] = time.Since(start)
	}
	return medianUs(rtts), nil
}
