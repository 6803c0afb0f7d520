package network_test

import (
	"net"
	"os"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/network"
)

// udpEcho answers every datagram with itself until the test ends.
func udpEcho(t testing.TB) net.Addr {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 2048)
		for {
			n, addr, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			pc.WriteTo(buf[:n], addr)
		}
	}()
	t.Cleanup(func() { pc.Close(); <-done })
	return pc.LocalAddr()
}

func shapedSocket(t *testing.T, p network.Profile) net.PacketConn {
	t.Helper()
	raw, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pc := p.Packets(raw)
	t.Cleanup(func() { pc.Close() })
	return pc
}

// A shaped UDP socket pays the delay each way on every datagram, and
// 100 datagrams of 1 250 bytes (a request's and its echo's 125 kB) at
// 8 Mbit/s each way take at least 125 ms to come back, none lost.
func TestPacketsPayTheDelayEachWayAndThePace(t *testing.T) {
	echo := udpEcho(t)
	pc := shapedSocket(t, network.Profile{Delay: 10 * time.Millisecond})
	buf := make([]byte, 2048)
	for range 3 {
		start := time.Now()
		pc.WriteTo([]byte("hello"), echo)
		if n, _, err := pc.ReadFrom(buf); err != nil || string(buf[:n]) != "hello" {
			t.Fatalf("read %q, %v", buf[:n], err)
		}
		if rtt := time.Since(start); rtt < 20*time.Millisecond || rtt > 200*time.Millisecond {
			t.Errorf("round trip %v, want 20ms (delay 10ms each way) and not ten times that", rtt)
		}
	}
	paced := shapedSocket(t, network.Profile{Bandwidth: 8_000_000})
	start := time.Now()
	for i := range 100 {
		b := make([]byte, 1250)
		b[0] = byte(i)
		paced.WriteTo(b, echo)
	}
	for range 100 {
		if _, _, err := paced.ReadFrom(buf); err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(start); took < 125*time.Millisecond {
		t.Errorf("100 datagrams of 1 250 B out and back at 8 Mbit/s took %v, want at least 125ms", took)
	}
}

// A read waits no longer than its deadline, moved while it waits too, and
// a closed socket ends it.
func TestAShapedReadEndsAtItsDeadlineOrClose(t *testing.T) {
	pc := shapedSocket(t, network.Profile{Delay: time.Millisecond})
	pc.SetReadDeadline(time.Now().Add(30 * time.Millisecond))
	if _, _, err := pc.ReadFrom(make([]byte, 10)); !os.IsTimeout(err) {
		t.Errorf("read past its deadline: %v, want a timeout", err)
	}
	pc.SetReadDeadline(time.Time{})
	errs := make(chan error, 1)
	go func() { _, _, err := pc.ReadFrom(make([]byte, 10)); errs <- err }()
	time.Sleep(10 * time.Millisecond)
	pc.SetReadDeadline(time.Now())
	if err := <-errs; !os.IsTimeout(err) {
		t.Errorf("a read whose deadline moved to now: %v, want a timeout", err)
	}
	go func() { _, _, err := pc.ReadFrom(make([]byte, 10)); errs <- err }()
	time.Sleep(10 * time.Millisecond)
	pc.Close()
	if err := <-errs; err == nil {
		t.Error("a read on a closed socket returned no error")
	}
}
