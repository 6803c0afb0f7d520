package codec

import (
	"fmt"
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
		// A user's message nests as deep as its fill allows (a message
		// and a list a level each), past the library's default of 32.
		MaxNestedLevels: 256,
	}.DecMode()
	if err != nil {
		panic(err)
	}
	return &cborCodec{enc: enc, dec: dec}
}

func (*cborCodec) Name() string        { return "cbor" }
func (*cborCodec) ContentType() string { return "application/cbor" }

func (c *cborCodec) Marshal(m proto.Message) ([]byte, error) {
	if d, ok := isDynamic(m); ok {
		return c.enc.Marshal(tree(d))
	}
	return c.enc.Marshal(m)
}

func (c *cborCodec) Unmarshal(data []byte, m proto.Message) error {
	d, ok := isDynamic(m)
	if !ok {
		return c.dec.Unmarshal(data, m)
	}
	var t any
	if err := c.dec.Unmarshal(data, &t); err != nil {
		return err
	}
	if err := cborTree.fromTree(t, d); err != nil {
		return fmt.Errorf("cbor: %w", err)
	}
	return nil
}
