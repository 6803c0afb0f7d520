package codec

import (
	"math"

	"github.com/fxamacker/cbor/v2"
	"google.golang.org/protobuf/proto"
)

// cborCodec is CBOR (RFC 8949) via fxamacker/cbor, which reads the json
// struct tags, so field names match the JSON codecs.
type cborCodec struct {
	enc cbor.EncMode
	dec cbor.DecMode
}

func newCBORCodec() *cborCodec {
	enc, err := cbor.EncOptions{}.EncMode()
	if err != nil {
		panic(err) // fixed options: a failure is a programming error
	}
	// The library's default caps arrays at 131 072 elements, below the
	// thesis's 300 000 users; size is bounded by the caller's byte limit.
	dec, err := cbor.DecOptions{
		MaxArrayElements: math.MaxInt32,
		MaxMapPairs:      math.MaxInt32,
	}.DecMode()
	if err != nil {
		panic(err)
	}
	return &cborCodec{enc: enc, dec: dec}
}

func (*cborCodec) Name() string        { return "cbor" }
func (*cborCodec) ContentType() string { return "application/cbor" }

func (c *cborCodec) Marshal(m proto.Message) ([]byte, error) { return c.enc.Marshal(m) }

func (c *cborCodec) Unmarshal(data []byte, m proto.Message) error { return c.dec.Unmarshal(data, m) }
