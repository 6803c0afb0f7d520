package network_test

import (
	"context"
	"io"
	"net"
	"testing"

	"github.com/hopbench/hopbench/internal/network"
)

// What the shaper adds to one small round trip, over a connection and over
// datagrams (ns/op less the loopback case's; lan asks 200 µs):
// go test ./internal/network -run - -bench ShapedRoundTrip -benchtime 3000x
func BenchmarkShapedRoundTrip(b *testing.B) {
	lan, _ := network.Parse("lan")
	for _, p := range []network.Profile{{}, lan} {
		b.Run("udp/"+p.String(), func(b *testing.B) {
			echo := udpEcho(b)
			raw, _ := net.ListenPacket("udp", "127.0.0.1:0")
			pc := p.Packets(raw)
			defer pc.Close()
			buf := make([]byte, 2048)
			msg := make([]byte, 100)
			b.ResetTimer()
			for range b.N {
				pc.WriteTo(msg, echo)
				pc.ReadFrom(buf)
			}
		})
		b.Run("tcp/"+p.String(), func(b *testing.B) {
			l, _ := net.Listen("tcp", "127.0.0.1:0")
			defer l.Close()
			go func() {
				c, err := l.Accept()
				if err != nil {
					return
				}
				io.Copy(c, c)
			}()
			raw, _ := net.Dial("tcp", l.Addr().String())
			c, _ := p.Connect(context.Background(), raw)
			defer c.Close()
			buf := make([]byte, 100)
			b.ResetTimer()
			for range b.N {
				c.Write(buf)
				io.ReadFull(c, buf)
			}
		})
	}
}
