package codec

import "google.golang.org/protobuf/proto"

// protoCodec is the Protobuf wire format, via google.golang.org/protobuf.
type protoCodec struct{}

func (protoCodec) Name() string        { return "proto" }
func (protoCodec) ContentType() string { return "application/x-protobuf" }

func (protoCodec) SchemaEvolution() string {
	return "Protobuf: fields are numbered; add fields freely, reserve the numbers and names of removed ones, and old and new peers still read each other"
}

func (protoCodec) Marshal(m proto.Message) ([]byte, error) { return proto.Marshal(m) }

func (protoCodec) Unmarshal(data []byte, m proto.Message) error {
	return proto.Unmarshal(data, m)
}
