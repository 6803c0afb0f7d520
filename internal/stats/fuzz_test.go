package stats

import (
	"testing"
	"time"
)

// Histogram decoding takes any string a results file may hold without
// panicking or taking the machine's memory.
func FuzzDecode(f *testing.F) {
	h := NewHistogram()
	for _, d := range []time.Duration{time.Microsecond, time.Millisecond, time.Second} {
		Record(h, d)
	}
	enc, _ := Encode(h)
	f.Add(enc)
	f.Add("")
	f.Add("HISTFAAAAB")
	f.Fuzz(func(t *testing.T, s string) {
		if h, err := Decode(s); err == nil && h == nil {
			t.Fatal("no histogram and no error")
		}
	})
}
