package hopframe

import (
	"bytes"
	"fmt"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/transport"
)

// The same calls in the proto JSON mapping, as Connect's json codec
// carries them: a Payload is {"<model>": <the model's JSON>}, put around
// and taken off the model's JSON as text, so that decoding stays the
// node's; GetRequest and FeedRequest are protojson.

// IsJSON says whether c is the proto JSON mapping.
func IsJSON(c codec.Codec) bool { return c != nil && c.Name() == codec.ProtoJSON.Name() }

func bodyCodec(json bool) codec.Codec {
	if json {
		return codec.ProtoJSON
	}
	return protoCodec
}

func encodeRequest(json bool, m proto.Message) (*Frame, error) {
	if json {
		b, err := protojson.Marshal(m)
		return &Frame{Body: b, JSON: true}, err
	}
	b, err := proto.Marshal(m)
	return &Frame{Body: b}, err
}

func decodeRequest(in *Frame, m proto.Message) error {
	var err error
	if in.JSON {
		err = protojson.Unmarshal(in.Body, m)
	} else {
		err = proto.Unmarshal(in.Body, m)
	}
	if err != nil {
		return transport.Errorf(transport.CodeBadRequest, "decoding %s: %w", m.ProtoReflect().Descriptor().Name(), err)
	}
	return nil
}

// wrapJSON puts a model's JSON into the Payload field named after it.
func wrapJSON(model string, body []byte) (*Frame, error) {
	if payloadFields.ByJSONName(model) == nil {
		return nil, transport.Errorf(transport.CodeNotFound, "no Payload field for model %q", model)
	}
	return &Frame{Header: []byte(`{"` + model + `":`), Body: body, Tail: []byte("}"), JSON: true}, nil
}

// unwrapJSON reads a Payload's JSON, {"<model>": <the model's JSON>}:
// the model and its JSON, taken off as text without reading the model's
// JSON, which the node decodes (a full parse here would read every
// message twice, a cost connect-go's own codec does not have). A second
// field is left inside the model's JSON, whose decoding then refuses it.
func unwrapJSON(b []byte) (model string, body []byte, err error) {
	bad := func(why string) (string, []byte, error) {
		return "", nil, transport.Errorf(transport.CodeBadRequest, "malformed Payload JSON: %s; set one model's field, e.g. {\"user\": {...}}", why)
	}
	rest := bytes.TrimSpace(b)
	if len(rest) < 2 || rest[0] != '{' || rest[len(rest)-1] != '}' {
		return bad("not an object")
	}
	rest = bytes.TrimSpace(rest[1 : len(rest)-1])
	if len(rest) == 0 || rest[0] != '"' {
		return bad("no field")
	}
	end := bytes.IndexByte(rest[1:], '"')
	if end < 0 {
		return bad("a field name without its end")
	}
	key, rest := rest[1:1+end], bytes.TrimSpace(rest[2+end:])
	fd := payloadFields.ByJSONName(string(key))
	if fd == nil {
		return bad(fmt.Sprintf("%q is not a model", key))
	}
	if len(rest) == 0 || rest[0] != ':' || len(bytes.TrimSpace(rest[1:])) == 0 {
		return bad(fmt.Sprintf("no value for %s", key))
	}
	return string(fd.Name()), bytes.TrimSpace(rest[1:]), nil
}
