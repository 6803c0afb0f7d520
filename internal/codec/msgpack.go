package codec

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/vmihailenco/msgpack/v5"
	"google.golang.org/protobuf/proto"
)

// msgpackCodec is MessagePack via vmihailenco/msgpack, with the same field
// names as the JSON codecs, so the formats differ in encoding only. Pinned
// to v5.3.6: v5.4.0 and v5.4.1 never apply their slice allocation cap, so a
// 5-byte array header allocates gigabytes (upstream issue #401, open).
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
	var v any = m
	if d, ok := isDynamic(m); ok {
		v = tree(d)
	}
	if err := e.enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.Clone(e.buf.Bytes()), nil
}

func (*msgpackCodec) Unmarshal(data []byte, m proto.Message) error {
	dec := msgpack.GetDecoder()
	defer msgpack.PutDecoder(dec)
	r := bytes.NewReader(data)
	dec.Reset(r)
	dec.SetCustomStructTag("json")
	if d, ok := isDynamic(m); ok {
		dec.SetMapDecoder(func(dec *msgpack.Decoder) (any, error) { return dec.DecodeUntypedMap() })
		defer dec.SetMapDecoder(nil)
		t, err := dec.DecodeInterface()
		if err != nil {
			return err
		}
		if err := msgpackTree.fromTree(t, d); err != nil {
			return fmt.Errorf("msgpack: %w", err)
		}
	} else if err := dec.Decode(m); err != nil {
		return err
	}
	if r.Len() > 0 {
		return fmt.Errorf("msgpack: %d trailing bytes after the message", r.Len())
	}
	return nil
}
