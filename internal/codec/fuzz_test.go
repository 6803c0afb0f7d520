package codec_test

import (
	"testing"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/payload"
)

// FuzzUnmarshal feeds arbitrary bytes to every decoder path: each codec into
// each model's message type. Decoders may refuse, never panic or hang.
func FuzzUnmarshal(f *testing.F) {
	codecs, models := codec.All(), payload.Models()
	for ci, c := range codecs {
		for mi, m := range models {
			msg, _ := m.Message(min(m.Counts[0], 64), payload.DefaultSeed)
			b, err := c.Marshal(msg)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(uint8(ci), uint8(mi), b)
		}
	}
	f.Add(uint8(0), uint8(0), []byte(`{"users":[{"age":"x"}]}`))
	f.Fuzz(func(t *testing.T, ci, mi uint8, data []byte) {
		c, m := codecs[int(ci)%len(codecs)], models[int(mi)%len(models)]
		_ = c.Unmarshal(data, m.New())
	})
}

// FuzzDecompress feeds arbitrary bytes to every decompressor under a small
// limit: refusals are fine, panics and output above the limit are not.
func FuzzDecompress(f *testing.F) {
	names := codec.CompressionNames()
	for i, name := range names {
		z, _ := codec.LookupCompression(name)
		b, _ := z.Compress([]byte("hello hello hello hello"))
		f.Add(uint8(i), b)
	}
	f.Fuzz(func(t *testing.T, zi uint8, data []byte) {
		z, _ := codec.LookupCompression(names[int(zi)%len(names)])
		const limit = 1 << 16
		out, err := z.Decompress(data, limit)
		if err == nil && len(out) > limit {
			t.Fatalf("%s: %d bytes out, above the limit %d", z.Name(), len(out), limit)
		}
	})
}
