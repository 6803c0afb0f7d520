package codec

import (
	"encoding/json"
	"errors"

	gojson "github.com/goccy/go-json"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// jsonCodec is encoding/json on the generated structs: field names are the
// proto names (snake_case), zero values omitted, enums as numbers and bytes as
// base64, which is what a Go service marshalling these structs sends.
type jsonCodec struct{}

func (jsonCodec) Name() string        { return "json" }
func (jsonCodec) ContentType() string { return "application/json" }

// A user's message (a dynamicpb.Message, no Go struct) is JSON in the
// proto JSON mapping (protojson): lowerCamelCase names, enums by name,
// 64-bit integers as strings, what a gRPC-Gateway or Connect peer sends;
// read as they read it, unknown fields and enum names discarded (as
// encoding/json discards unknown keys for the built-in models).
func (jsonCodec) Marshal(m proto.Message) ([]byte, error) {
	if d, ok := isDynamic(m); ok {
		return protojson.Marshal(d)
	}
	return json.Marshal(m)
}

func (jsonCodec) Unmarshal(data []byte, m proto.Message) error {
	if d, ok := isDynamic(m); ok {
		return protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(data, d)
	}
	return json.Unmarshal(data, m)
}

// jsonFastCodec produces the same JSON as jsonCodec with goccy/go-json, the
// fastest of the drop-in JSON libraries measured here (see docs/payloads-and-codecs.md).
type jsonFastCodec struct{}

func (jsonFastCodec) Name() string        { return "json-fast" }
func (jsonFastCodec) ContentType() string { return "application/json" }

func (jsonFastCodec) Marshal(m proto.Message) ([]byte, error) {
	if _, ok := isDynamic(m); ok {
		return nil, errNoStructs
	}
	return gojson.Marshal(m)
}

func (jsonFastCodec) Unmarshal(data []byte, m proto.Message) error {
	if _, ok := isDynamic(m); ok {
		return errNoStructs
	}
	return gojson.Unmarshal(data, m)
}

// errNoStructs refuses json-fast for a user's message: goccy/go-json
// speeds up encoding/json on Go structs, and a .proto read at run time
// has none.
var errNoStructs = errors.New("json-fast encodes Go structs generated at build time, and a message from a .proto read at run time has none: use json (the proto JSON mapping)")
