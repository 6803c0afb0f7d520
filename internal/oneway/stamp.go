// Package oneway measures one-way messaging over the broker stacks:
// producers publish at a rate (or as fast as the broker takes them),
// consumers in one or more subscription groups take the messages, and
// every message is accounted for: consumed, lost, duplicated, out of
// order, and its end-to-end latency from its intended send time.
package oneway

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// stampSize is the bytes every one-way message carries before its body.
const stampSize = 48

var magic = [4]byte{'H', 'B', '1', 'W'}

// Stamp is what a message carries to be accounted for: whose run it
// belongs to, its place in the run and in its producer's sequence, and
// when it was due and sent (Unix nanoseconds, this machine's clock: the
// producers and consumers share it).
type Stamp struct {
	Run      uint64
	Seq      uint64 // the run's, from 0
	Producer uint32
	PSeq     uint64 // the producer's, from 0
	Intended int64
	Sent     int64
}

// put writes s into b's first stampSize bytes.
func (s Stamp) put(b []byte) {
	copy(b, magic[:])
	binary.LittleEndian.PutUint64(b[4:], s.Run)
	binary.LittleEndian.PutUint64(b[12:], s.Seq)
	binary.LittleEndian.PutUint32(b[20:], s.Producer)
	binary.LittleEndian.PutUint64(b[24:], s.PSeq)
	binary.LittleEndian.PutUint64(b[32:], uint64(s.Intended))
	binary.LittleEndian.PutUint64(b[40:], uint64(s.Sent))
}

var errNoStamp = errors.New("not a hopbench one-way message (no stamp)")

// readStamp reads a message's stamp and returns its body after it.
func readStamp(b []byte) (Stamp, []byte, error) {
	if len(b) < stampSize || [4]byte(b[:4]) != magic {
		return Stamp{}, nil, errNoStamp
	}
	s := Stamp{
		Run:      binary.LittleEndian.Uint64(b[4:]),
		Seq:      binary.LittleEndian.Uint64(b[12:]),
		Producer: binary.LittleEndian.Uint32(b[20:]),
		PSeq:     binary.LittleEndian.Uint64(b[24:]),
		Intended: int64(binary.LittleEndian.Uint64(b[32:])),
		Sent:     int64(binary.LittleEndian.Uint64(b[40:])),
	}
	if s.Seq >= maxMessages {
		return Stamp{}, nil, fmt.Errorf("message %d: past the %d messages a run may publish", s.Seq, maxMessages)
	}
	return s, b[stampSize:], nil
}
