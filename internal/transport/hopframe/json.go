package hopframe

import (
	"encoding/json"

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

// unwrapJSON reads a Payload's JSON that sets exactly one field: the
// model and its JSON.
func unwrapJSON(b []byte) (model string, body []byte, err error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return "", nil, transport.Errorf(transport.CodeBadRequest, "malformed Payload JSON: %v", err)
	}
	if len(fields) != 1 {
		return "", nil, transport.Errorf(transport.CodeBadRequest, "a Payload JSON with %d fields; set exactly one model (user, payment, ...)", len(fields))
	}
	for k, v := range fields {
		fd := payloadFields.ByJSONName(k)
		if fd == nil {
			return "", nil, transport.Errorf(transport.CodeBadRequest, "malformed Payload JSON: %q is not a model", k)
		}
		model, body = string(fd.Name()), v
	}
	return model, body, nil
}
