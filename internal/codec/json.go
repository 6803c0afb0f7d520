package codec

import (
	"encoding/json"

	gojson "github.com/goccy/go-json"
	"google.golang.org/protobuf/proto"
)

// jsonCodec is encoding/json on the generated structs: field names are the
// proto names (snake_case), zero values omitted, enums as numbers and bytes as
// base64, which is what a Go service marshalling these structs sends.
type jsonCodec struct{}

func (jsonCodec) Name() string        { return "json" }
func (jsonCodec) ContentType() string { return "application/json" }

func (jsonCodec) Marshal(m proto.Message) ([]byte, error) { return json.Marshal(m) }

func (jsonCodec) Unmarshal(data []byte, m proto.Message) error { return json.Unmarshal(data, m) }

// jsonFastCodec produces the same JSON as jsonCodec with goccy/go-json, the
// fastest of the drop-in JSON libraries measured here (see docs/payloads-and-codecs.md).
type jsonFastCodec struct{}

func (jsonFastCodec) Name() string        { return "json-fast" }
func (jsonFastCodec) ContentType() string { return "application/json" }

func (jsonFastCodec) Marshal(m proto.Message) ([]byte, error) { return gojson.Marshal(m) }

func (jsonFastCodec) Unmarshal(data []byte, m proto.Message) error {
	return gojson.Unmarshal(data, m)
}
