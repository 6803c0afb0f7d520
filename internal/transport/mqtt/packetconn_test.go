package mqtt

import (
	"bytes"
	"net"
	"sync/atomic"
	"testing"

	"github.com/eclipse/paho.golang/packets"
)

// writeCounter counts the writes made to its connection.
type writeCounter struct {
	net.Conn
	writes atomic.Int64
}

func (w *writeCounter) Write(p []byte) (int, error) {
	w.writes.Add(1)
	return w.Conn.Write(p)
}

// A packet paho writes in four parts goes out in one write (a large body
// in a second one of its own), and reads back whole through the buffer.
func TestAPacketGoesOutInOneWrite(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() { c, _ := l.Accept(); accepted <- c }()
	raw, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	counted := &writeCounter{Conn: raw}
	out := newPacketConn(counted)
	defer out.Close()
	peer := <-accepted
	defer peer.Close()
	in := newPacketConn(peer)
	for _, c := range []struct {
		body   int
		writes int64
	}{{100, 1}, {0, 1}, {200 << 10, 2}} {
		before := counted.writes.Load()
		body := bytes.Repeat([]byte{'x'}, c.body)
		p := &packets.Publish{Topic: "t", QoS: 1, PacketID: 7, Payload: body, Properties: &packets.Properties{ContentType: "application/x-protobuf"}}
		if _, err := p.WriteTo(out); err != nil {
			t.Fatal(err)
		}
		if got := counted.writes.Load() - before; got != c.writes {
			t.Errorf("a packet with a %d-byte body went out in %d writes, want %d", c.body, got, c.writes)
		}
		cp, err := packets.ReadPacket(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := cp.Content.(*packets.Publish); got.Topic != "t" || !bytes.Equal(got.Payload, body) || got.Properties.ContentType != "application/x-protobuf" {
			t.Fatalf("read back %s", got)
		}
	}
}
