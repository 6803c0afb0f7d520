package network_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hopbench/hopbench/internal/network"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestProfilesParseAndRefuseWhatNoNetworkHas(t *testing.T) {
	for _, c := range []struct {
		in   string
		want network.Profile
		str  string
	}{
		{"", network.Profile{}, "loopback"},
		{"loopback", network.Profile{}, "loopback"},
		{"lan", network.Profile{Name: "lan", Delay: 100 * time.Microsecond, Bandwidth: 1_000_000_000}, "lan"},
		{"wan", network.Profile{Name: "wan", Delay: 20 * time.Millisecond, Bandwidth: 50_000_000}, "wan"},
		{"delay=5ms", network.Profile{Delay: 5 * time.Millisecond}, "delay=5ms"},
		{"delay=1ms, jitter=100us, bandwidth=100mbit", network.Profile{Delay: time.Millisecond, Jitter: 100 * time.Microsecond, Bandwidth: 100_000_000},
			"delay=1ms,jitter=100µs,bandwidth=100mbit"},
		{"bandwidth=1.5Mbit", network.Profile{Bandwidth: 1_500_000}, "bandwidth=1500kbit"},
	} {
		p, err := network.Parse(c.in)
		if err != nil || p != c.want || p.String() != c.str {
			t.Errorf("Parse(%q) = %+v (%q), %v; want %+v (%q)", c.in, p, p.String(), err, c.want, c.str)
		}
		if back, err := network.Parse(p.String()); err != nil || back != p {
			t.Errorf("%q read back as %+v, %v", p.String(), back, err)
		}
	}
	for in, want := range map[string]string{
		"lna":                       "want one of loopback, lan, region, wan",
		"delay=5":                   "delay=5",
		"latency=5ms":               `unknown setting "latency"`,
		"delay=1ms,jitter=2ms":      "jitter 2ms: want 0 up to the delay",
		"delay=1h":                  "delay 1h0m0s: want 0 to 10s",
		"bandwidth=100":             "want a rate such as 8mbit",
		"bandwidth=1kbit":           "want at least 8kbit",
		"bandwidth=-5mbit":          "want a rate such as",
		"delay=1ms,bandwidth=3tbit": "want a rate such as",
	} {
		if _, err := network.Parse(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q): %v, want an error saying %q", in, err, want)
		}
	}
}

// serve runs handle on each connection to a listener on loopback,
// unshaped: the shaping is the dialling end's.
func serve(t *testing.T, handle func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { handle(c); c.Close() }()
		}
	}()
	return ln.Addr().String()
}

// echoServer echoes every connection as it reads.
func echoServer(t *testing.T) string { return serve(t, func(c net.Conn) { io.Copy(c, c) }) }

func dial(t *testing.T, p network.Profile, addr string) (net.Conn, time.Duration) {
	t.Helper()
	start := time.Now()
	raw, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := p.Connect(context.Background(), raw)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn, time.Since(start)
}

// A shaped connection pays a round trip to open and the delay each way of
// every exchange; timers may wake late on a busy machine, never early.
func TestDelayIsPaidEachWayAndOnConnect(t *testing.T) {
	p := network.Profile{Delay: 20 * time.Millisecond}
	conn, opened := dial(t, p, echoServer(t))
	if opened < 40*time.Millisecond {
		t.Errorf("connected in %v, want at least a round trip (40ms)", opened)
	}
	buf := make([]byte, 5)
	for range 3 {
		start := time.Now()
		if _, err := conn.Write([]byte("hello")); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(conn, buf); err != nil || string(buf) != "hello" {
			t.Fatalf("read %q, %v", buf, err)
		}
		if rtt := time.Since(start); rtt < 40*time.Millisecond || rtt > 400*time.Millisecond {
			t.Errorf("round trip %v, want 40ms (delay 20ms each way) and not ten times that", rtt)
		}
	}
	if conn.RemoteAddr().String() != conn.RemoteAddr().String() || !strings.HasPrefix(conn.RemoteAddr().String(), "127.0.0.1:") {
		t.Errorf("remote address %v: want the real connection's", conn.RemoteAddr())
	}
}

// replyServer reads n bytes from each connection, then sends them back: a
// request and its reply, as a service answers (an echo that streams back
// while it reads would overlap the two directions).
func replyServer(t *testing.T, n int) string {
	return serve(t, func(c net.Conn) {
		buf := make([]byte, n)
		if _, err := io.ReadFull(c, buf); err == nil {
			c.Write(buf)
		}
	})
}

// At 8 Mbit/s each way, a 100 kB request and its 100 kB reply take 200 ms
// at least, and bytes arrive in order whatever the jitter.
func TestBandwidthPacesEachDirectionInOrder(t *testing.T) {
	p := network.Profile{Delay: 2 * time.Millisecond, Jitter: 2 * time.Millisecond, Bandwidth: 8_000_000}
	conn, _ := dial(t, p, replyServer(t, 100_000))
	body := make([]byte, 100_000)
	for i := range body {
		body[i] = byte(i % 251)
	}
	start := time.Now()
	go conn.Write(body)
	got := make([]byte, len(body))
	if _, err := io.ReadFull(conn, got); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if !bytes.Equal(got, body) {
		t.Fatal("the reply came back out of order or changed")
	}
	if took < 200*time.Millisecond {
		t.Errorf("a 100 kB request and reply at 8 Mbit/s took %v, want at least 200ms", took)
	}
}

// Closing sends what is queued first, as TCP does.
func TestCloseDeliversWhatWasWritten(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan []byte, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- nil
			return
		}
		b, _ := io.ReadAll(c)
		c.Close()
		got <- b
	}()
	p := network.Profile{Delay: 10 * time.Millisecond, Bandwidth: 1_000_000}
	raw, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	conn, err := p.Connect(context.Background(), raw)
	if err != nil {
		t.Fatal(err)
	}
	body := bytes.Repeat([]byte("x"), 20_000) // 160 ms at 1 Mbit/s
	if _, err := conn.Write(body); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if b := <-got; len(b) != len(body) {
		t.Errorf("the peer read %d bytes of %d written before close", len(b), len(body))
	}
}

func TestConnectGivesUpWithItsContext(t *testing.T) {
	raw, err := net.Dial("tcp", echoServer(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := (network.Profile{Delay: 5 * time.Second}).Connect(ctx, raw); err == nil {
		t.Fatal("a 10 s handshake finished within a 10 ms context")
	}
}

// What Measure reports is what the profile gives: a round trip of twice
// the delay and the bandwidth asked, each within the machine's slack.
func TestMeasureFindsTheProfilesRoundTripAndBandwidth(t *testing.T) {
	p := network.Profile{Delay: 5 * time.Millisecond, Bandwidth: 8_000_000}
	m, err := network.Measure(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", m)
	if m.RTTUs < 10_000 || m.RTTUs > 30_000 {
		t.Errorf("round trip %.0fµs, want 10ms (5ms each way) give or take timer lateness", m.RTTUs)
	}
	if m.DatagramRTTUs < 10_000 || m.DatagramRTTUs > 30_000 {
		t.Errorf("round trip over datagrams %.0fµs, want 10ms as over the connection", m.DatagramRTTUs)
	}
	if m.Mbit < 8*0.85 || m.Mbit > 8*1.15 {
		t.Errorf("throughput %.2f Mbit/s, want within 15%% of 8", m.Mbit)
	}
	if m.Profile != "delay=5ms,bandwidth=8mbit" || m.Mechanism != network.InProcess {
		t.Errorf("measured %+v: want the profile and mechanism named", m)
	}
}
