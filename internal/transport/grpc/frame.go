package grpc

import (
	"google.golang.org/grpc/encoding"
	_ "google.golang.org/grpc/encoding/proto" // registers the codec rawCodec falls back to
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/hopbench/hopbench/internal/transport"
	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

// frame is a message as bytes: an optional header (the Payload field's tag
// and length) before the body, sent as two buffers so the body is not copied.
// A received frame is all body.
type frame struct {
	header, body []byte
}

// rawCodec passes frames through and leaves other messages (server
// reflection's) to grpc-go's proto codec. Its name is "proto", so the
// content type on the wire is the standard application/grpc+proto.
type rawCodec struct{}

func (rawCodec) Name() string { return "proto" }

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	if f, ok := v.(*frame); ok {
		if len(f.header) == 0 {
			return mem.BufferSlice{mem.SliceBuffer(f.body)}, nil
		}
		return mem.BufferSlice{mem.SliceBuffer(f.header), mem.SliceBuffer(f.body)}, nil
	}
	return encoding.GetCodecV2("proto").Marshal(v)
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	if f, ok := v.(*frame); ok {
		f.header, f.body = nil, data.Materialize()
		return nil
	}
	return encoding.GetCodecV2("proto").Unmarshal(data, v)
}

var payloadFields = pb.File_hopbench_v1_service_proto.Messages().ByName("Payload").Fields()

// wrap puts a model's encoding into the Payload field named after the model.
func wrap(model string, body []byte) (*frame, error) {
	fd := payloadFields.ByName(protoreflect.Name(model))
	if fd == nil {
		return nil, transport.Errorf(transport.CodeNotFound, "no Payload field for model %q", model)
	}
	header := protowire.AppendTag(nil, fd.Number(), protowire.BytesType)
	header = protowire.AppendVarint(header, uint64(len(body)))
	return &frame{header: header, body: body}, nil
}

// unwrap reads a Payload that sets exactly one field: the model and its body.
func unwrap(b []byte) (model string, body []byte, err error) {
	if len(b) == 0 {
		return "", nil, transport.Errorf(transport.CodeBadRequest, "empty Payload: set the field of one model (user, payment, ...)")
	}
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 {
		return "", nil, transport.Errorf(transport.CodeBadRequest, "malformed Payload: %v", protowire.ParseError(n))
	}
	fd := payloadFields.ByNumber(num)
	if fd == nil || typ != protowire.BytesType {
		return "", nil, transport.Errorf(transport.CodeBadRequest, "malformed Payload: field %d is not a model", num)
	}
	body, m := protowire.ConsumeBytes(b[n:])
	if m < 0 {
		return "", nil, transport.Errorf(transport.CodeBadRequest, "malformed Payload: %v", protowire.ParseError(m))
	}
	if n+m != len(b) {
		return "", nil, transport.Errorf(transport.CodeBadRequest, "malformed Payload: %d bytes after the %s field; set exactly one model", len(b)-n-m, fd.Name())
	}
	return string(fd.Name()), body, nil
}
