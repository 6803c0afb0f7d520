package oneway

import (
	"math/rand/v2"
	"testing"
)

// missingIn counts exactly what a set of the same messages says, over
// ranges that cut words and chunks anywhere.
func TestMissingInCountsEveryMessageOfTheRange(t *testing.T) {
	var want, got bitmap
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 3*chunkBits + 100
	wantSet, gotSet := map[uint64]bool{}, map[uint64]bool{}
	for i := uint64(0); i < n; i++ {
		if rng.IntN(3) > 0 {
			want.set(i)
			wantSet[i] = true
		}
		if rng.IntN(2) == 0 {
			if got.set(i) {
				t.Fatalf("message %d set twice", i)
			}
			gotSet[i] = true
		}
	}
	for range 200 {
		lo := uint64(rng.IntN(n))
		hi := lo + uint64(rng.IntN(n-int(lo)+1))
		var expect int64
		for i := lo; i < hi; i++ {
			if wantSet[i] && !gotSet[i] {
				expect++
			}
		}
		if m := got.missingIn(&want, lo, hi); m != expect {
			t.Fatalf("missingIn(%d, %d) = %d, want %d", lo, hi, m, expect)
		}
	}
	if got.set(5) != gotSet[5] {
		t.Errorf("set says whether the message was marked already")
	}
}
