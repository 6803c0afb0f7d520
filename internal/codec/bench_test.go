package codec_test

import (
	"fmt"
	"testing"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/payload"
)

// BenchmarkCodecs is the `go test -bench` view of what `hopbench codec`
// measures, at one small and one nested size, for benchstat comparisons.
func BenchmarkCodecs(b *testing.B) {
	for _, mc := range []struct {
		model string
		count int
	}{{"recipe", 1}, {"payment", 650}, {"alltypes", 1000}} {
		m, _ := payload.Lookup(mc.model)
		msg, _ := m.Message(mc.count, payload.DefaultSeed)
		for _, c := range codec.All() {
			data, err := c.Marshal(msg)
			if err != nil {
				b.Fatal(err)
			}
			name := fmt.Sprintf("%s-%d/%s", mc.model, mc.count, c.Name())
			b.Run(name+"/marshal", func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := c.Marshal(msg); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(name+"/unmarshal", func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					if err := c.Unmarshal(data, m.New()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
