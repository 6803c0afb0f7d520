package codec

import (
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// ProtoJSON is the proto JSON mapping (protojson): lowerCamelCase names,
// enums by name, 64-bit integers as strings. It is not one of the
// registry's codecs: a stack's json is hopbench's json (encoding/json on
// the structs) everywhere but where a protocol fixes the mapping, as
// Connect's does (connect+json: what connect-go's JSON codec sends).
var ProtoJSON Codec = protoJSONCodec{}

type protoJSONCodec struct{}

func (protoJSONCodec) Name() string        { return "protojson" }
func (protoJSONCodec) ContentType() string { return "application/json" }

func (protoJSONCodec) Marshal(m proto.Message) ([]byte, error) { return protojson.Marshal(m) }

// Unmarshal reads as connect-go's JSON codec reads: unknown fields
// discarded.
func (protoJSONCodec) Unmarshal(data []byte, m proto.Message) error {
	return protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(data, m)
}
