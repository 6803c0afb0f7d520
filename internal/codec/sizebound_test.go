package codec_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/racetest"
)

// boundRatio is how far above the encoded size a size bound may be from
// 64 items on: it charges every item the widest of a sample, which is at
// most about 1.6 times the mean item of any model.
const boundRatio = 4

// largeCounts are counts near each model's largest studied sizes, within
// the test's time (the whole test takes a few seconds).
var largeCounts = map[string][]int{
	"user":     {20_000},
	"payment":  {650},
	"recipe":   {5_000},
	"text":     {65_535, 65_536, 1_000_000},
	"alltypes": {10_000, 40_001},
	"int":      {},
	"ints":     {65_535, 65_536, 345_922, 1<<21 + 5},
	"textfile": {455 * 1024},
	"blob":     {3_400 * 1024},
}

// mediumAtMost caps the medium counts of the models whose items are large
// (a payment is about 2 kB of JSON), for the test's time.
var mediumAtMost = map[string]int{"payment": 1000, "recipe": 2000}

// TestSizeBoundIsAnUpperBound is a property test: for every model, codec and
// compression and counts spread over the model's range (fixed ones at the
// edges of varints, array headers and Avro's blocks, and random ones from a
// fixed seed), the bound is at least the encoded size of the message the
// generator makes for a random seed, and from 64 items on at most
// boundRatio times it.
func TestSizeBoundIsAnUpperBound(t *testing.T) {
	racetest.Unraced(t, "one goroutine's arithmetic, about 8 times slower under -race for nothing")
	rng := rand.New(rand.NewPCG(36, 6))
	small := []int{0, 1, 2, 3, 7, 9, 10, 15, 16, 17, 23, 24, 25, 63, 64, 65, 99, 100, 101, 127, 128, 200, 201, 255, 256}
	worst := map[string]float64{} // the largest bound over size from 64 items on, for the log
	for _, m := range payload.Models() {
		counts := append([]int(nil), small...)
		for _, c := range []int{1000, 4096, 4097, rng.IntN(1000) + 1, rng.IntN(20_000) + 1} {
			if c <= mediumAtMost[m.Name] || mediumAtMost[m.Name] == 0 {
				counts = append(counts, c)
			}
		}
		counts = append(counts, largeCounts[m.Name]...)
		start := time.Now()
		for _, c := range codec.All() {
			bound, err := m.SizeBound(c.Marshal)
			if err != nil {
				t.Fatalf("%s in %s: %v", m.Name, c.Name(), err)
			}
			for _, count := range counts {
				if m.CheckCount(count) != nil {
					continue
				}
				msg, err := payload.Generate(m.Name, count, rng.Uint64N(1<<32)+1)
				if err != nil {
					t.Fatal(err)
				}
				b, err := c.Marshal(msg)
				if err != nil {
					t.Fatalf("%s×%d in %s: %v", m.Name, count, c.Name(), err)
				}
				got, est := int64(len(b)), bound.Size(count)
				if est < got {
					t.Errorf("%s×%d in %s: bound %d bytes, encoded %d", m.Name, count, c.Name(), est, got)
				}
				if count >= 64 {
					worst[m.Name] = max(worst[m.Name], float64(est)/float64(got))
				}
				if count >= 64 && est > boundRatio*got {
					t.Errorf("%s×%d in %s: bound %d bytes, over %d times the encoded %d", m.Name, count, c.Name(), est, boundRatio, got)
				}
				if len(b) < 1<<20 || rng.IntN(4) == 0 {
					checkCompressed(t, b, est, m.Name, count, c.Name())
				}
			}
		}
		t.Logf("%s: %v", m.Name, time.Since(start))
	}
	t.Logf("largest bound over encoded size from 64 items on: %v", worst)
}

// checkCompressed checks CompressedBound over the bound against the body
// compressed with gzip and with zstd.
func checkCompressed(t *testing.T, body []byte, bound int64, model string, count int, codecName string) {
	t.Helper()
	for _, name := range []string{"gzip", "zstd"} {
		z, err := codec.LookupCompression(name)
		if err != nil {
			t.Fatal(err)
		}
		zb, err := z.Compress(body)
		if err != nil {
			t.Fatal(err)
		}
		if est := codec.CompressedBound(z, bound); est < int64(len(zb)) {
			t.Errorf("%s×%d in %s+%s: bound %d bytes, compressed %d", model, count, codecName, name, est, len(zb))
		}
	}
}

// TestCompressedBoundHoldsForIncompressibleBodies: random bytes, which
// gzip and zstd can only store, from empty to 4 MiB.
func TestCompressedBoundHoldsForIncompressibleBodies(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 8))
	for _, n := range []int{0, 1, 100, 65_535, 65_536, 1 << 17, 1<<20 + 3, 4 << 20} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		checkCompressed(t, b, int64(n), "random", n, "bytes")
	}
}

// TestIntsBoundRefusesTheIssuesCount: 345922 ints in JSON encode to 2.31 MB;
// sampled from the first 64 values they were estimated at about 1 MB and
// passed a 1 MiB limit. The bound is over 1 MiB, and 22000000 ints are over
// the default body limit.
func TestIntsBoundRefusesTheIssuesCount(t *testing.T) {
	m, _ := payload.Lookup("ints")
	c, _ := codec.Lookup("json")
	if size, err := m.EncodedSize(345_922, c.Marshal); err != nil || size <= 1<<20 {
		t.Errorf("ints×345922 in json: bound %d bytes (%v), want over 1 MiB", size, err)
	}
	if size, err := m.EncodedSize(22_000_000, c.Marshal); err != nil || size <= codec.DefaultMaxBytes {
		t.Errorf("ints×22000000 in json: bound %d bytes (%v), want over %d", size, err, codec.DefaultMaxBytes)
	}
}

// The counts the studies measured (a model's Counts, what presets run)
// stay within the default body limit in every codec, compressed or not: a
// bound loose enough to refuse them (the widest user times 300 000 is
// 72.6 MB of JSON, the users 65.2 MB) would refuse the thesis's preset.
func TestStandardCountsFitTheDefaultLimit(t *testing.T) {
	gzip, _ := codec.LookupCompression("gzip")
	for _, m := range payload.Models() {
		for _, c := range codec.All() {
			bound, err := m.SizeBound(c.Marshal)
			if err != nil {
				t.Fatal(err)
			}
			for _, count := range m.Counts {
				if size := codec.CompressedBound(gzip, bound.Size(count)); size > codec.DefaultMaxBytes {
					t.Errorf("%s×%d in %s+gzip: bound %d bytes, over the default limit of %d", m.Name, count, c.Name(), size, codec.DefaultMaxBytes)
				}
			}
		}
	}
}
