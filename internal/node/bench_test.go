package node_test

import (
	"context"
	"testing"

	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/transport"
	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

// BenchmarkEcho is one echo of a 5-payment body through a real node (decode,
// re-encode) per op, with 8 callers at once, over each stack. Compare runs
// with benchstat; on 2 cores the client and node share the CPU, so read
// ratios between stacks, not absolute times.
func BenchmarkEcho(b *testing.B) {
	for _, s := range []struct {
		name, stack string
		tcfg        transport.Config
	}{
		{"rest+json/h1", "rest+json", transport.Config{}},
		{"rest+proto/h1", "rest+proto", transport.Config{}},
		{"rest+proto/h2c", "rest+proto", transport.Config{HTTP2: true}},
		{"grpc", "grpc", transport.Config{}},
	} {
		b.Run(s.name, func(b *testing.B) {
			nodes := startTopology(b, s.stack, "direct", s.tcfg)
			c := newCaller(b, s.stack, nodes[0].Addr(), s.tcfg)
			msg, _ := payload.Generate("payment", 5, payload.DefaultSeed)
			body, err := c.cc.Marshal(msg)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(body)))
			b.SetParallelism(4) // 4 x GOMAXPROCS callers
			b.ResetTimer()
			b.RunParallel(func(pbt *testing.PB) {
				req := c.req
				req.Op, req.Model, req.Body = transport.OpEcho, "payment", body
				for pbt.Next() {
					out, err := c.client.Call(context.Background(), &req)
					if err != nil {
						b.Error(err)
						return
					}
					var got pb.PaymentList
					if err := c.cc.Unmarshal(out, &got); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
