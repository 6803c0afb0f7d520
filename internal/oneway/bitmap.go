package oneway

import (
	"math/bits"
	"sync"
	"sync/atomic"
)

// maxMessages bounds the messages one run may publish (and the bitmaps
// that account for them: 16 MiB each at most).
const maxMessages = 1 << 27

const chunkBits = 1 << 16

// bitmap is one bit a message, set concurrently: allocated a chunk of
// 64 Ki messages at a time as the run reaches it.
type bitmap struct {
	mu     sync.Mutex
	chunks [maxMessages / chunkBits]atomic.Pointer[[chunkBits / 64]atomic.Uint64]
}

// set marks message i and says whether it was marked already.
func (m *bitmap) set(i uint64) (already bool) {
	w := m.chunk(i / chunkBits)
	bit := uint64(1) << (i % 64)
	old := w[(i%chunkBits)/64].Or(bit)
	return old&bit != 0
}

func (m *bitmap) has(i uint64) bool {
	w := m.chunks[i/chunkBits].Load()
	return w != nil && w[(i%chunkBits)/64].Load()&(uint64(1)<<(i%64)) != 0
}

func (m *bitmap) chunk(c uint64) *[chunkBits / 64]atomic.Uint64 {
	if w := m.chunks[c].Load(); w != nil {
		return w
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if w := m.chunks[c].Load(); w != nil {
		return w
	}
	w := new([chunkBits / 64]atomic.Uint64)
	m.chunks[c].Store(w)
	return w
}

// missing counts the messages below n marked in want and not in m.
func (m *bitmap) missing(want *bitmap, n uint64) int64 { return m.missingIn(want, 0, n) }

// missingIn counts the messages from lo to below hi marked in want and
// not in m.
func (m *bitmap) missingIn(want *bitmap, lo, hi uint64) int64 {
	var lost int64
	for w := lo / 64; w*64 < hi; w++ {
		bits := want.word(w) &^ m.word(w)
		if w == lo/64 {
			bits &= ^uint64(0) << (lo % 64) // from lo
		}
		if end := (w + 1) * 64; end > hi {
			bits &= ^uint64(0) >> (end - hi) // below hi
		}
		lost += int64(onesCount(bits))
	}
	return lost
}

// word is the 64 messages from 64×w.
func (m *bitmap) word(w uint64) uint64 {
	c := m.chunks[w*64/chunkBits].Load()
	if c == nil {
		return 0
	}
	return c[w%(chunkBits/64)].Load()
}

func onesCount(x uint64) int { return bits.OnesCount64(x) }
