package codec

import (
	"bytes"
	"sync"

	"github.com/vmihailenco/msgpack/v5"
	"google.golang.org/protobuf/proto"
)

// msgpackCodec is MessagePack via vmihailenco/msgpack, with the same field
// names and omitted zero values as the JSON codecs, so the formats differ in
// encoding only.
type msgpackCodec struct {
	encoders sync.Pool
}

type msgpackEncoder struct {
	buf bytes.Buffer
	enc *msgpack.Encoder
}

func newMsgpackCodec() *msgpackCodec {
	c := &msgpackCodec{}
	c.encoders.New = func() any {
		e := &msgpackEncoder{}
		e.enc = msgpack.NewEncoder(&e.buf)
		e.enc.SetCustomStructTag("json")
		return e
	}
	return c
}

func (*msgpackCodec) Name() string        { return "msgpack" }
func (*msgpackCodec) ContentType() string { return "application/msgpack" }

func (c *msgpackCodec) Marshal(m proto.Message) ([]byte, error) {
	e := c.encoders.Get().(*msgpackEncoder)
	defer c.encoders.Put(e)
	e.buf.Reset()
	if err := e.enc.Encode(m); err != nil {
		return nil, err
	}
	return bytes.Clone(e.buf.Bytes()), nil
}

func (*msgpackCodec) Unmarshal(data []byte, m proto.Message) error {
	dec := msgpack.GetDecoder()
	defer msgpack.PutDecoder(dec)
	dec.Reset(bytes.NewReader(data))
	dec.SetCustomStructTag("json")
	return dec.Decode(m)
}
