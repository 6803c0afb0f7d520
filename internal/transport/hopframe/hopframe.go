// Package hopframe is how the stacks that speak hopbench.v1.Hop's
// Protobuf service (gRPC on grpc-go, the Connect family on connect-go)
// move a call: a model's encoding travels as the matching field of the
// Payload oneof, added and removed at the wire level, so that decoding
// stays the node's, as on every stack, and what is on the wire is exactly
// what protoc-generated code sends. A user's message has a service of its
// own (hopbench.user.NameService) whose list travels bare.
package hopframe

import (
	"context"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/userschema"
	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

// Frame is a message as bytes: an optional header (the Payload field's
// tag and length) before the body, kept apart so the body is not copied
// where a library takes several buffers. A received frame is all body.
type Frame struct {
	Header, Body []byte
}

// Bytes is the frame as one slice (a copy when it has a header).
func (f *Frame) Bytes() []byte {
	if len(f.Header) == 0 {
		return f.Body
	}
	return append(append(make([]byte, 0, len(f.Header)+len(f.Body)), f.Header...), f.Body...)
}

// Family is a service and how its bodies travel: hopbench.v1.Hop wraps
// each model's encoding in a Payload field named after the model; a
// user's message's service carries its list bare, its Model fixed.
type Family struct {
	Service, File string
	Model         string // "" for Hop
}

// ServiceName is hopbench's own service.
const ServiceName = "hopbench.v1.Hop"

// Hop is hopbench.v1.Hop.
var Hop = Family{Service: ServiceName, File: "hopbench/v1/service.proto"}

// Unary are the operations a call of one reply carries; OpFeed's method
// is a server stream.
var Unary = []transport.Op{transport.OpGet, transport.OpPost, transport.OpEcho}

// Methods are the methods of every family, by operation.
var Methods = map[transport.Op]string{transport.OpGet: "Get", transport.OpPost: "Post", transport.OpEcho: "Echo", transport.OpFeed: "Feed"}

// UserFamily is the service of a user's message.
func UserFamily(p *userschema.Payload) Family {
	return Family{Service: string(p.Service.FullName()), File: p.Service.ParentFile().Path(), Model: string(p.Message.FullName())}
}

// Families are Hop and the service of every user's message this process
// registered.
func Families() []Family {
	out := []Family{Hop}
	for _, p := range userschema.AllUsed() {
		out = append(out, UserFamily(p))
	}
	return out
}

// FamilyOf is the service that carries model.
func FamilyOf(model string) Family {
	if p, ok := userschema.Used(model); ok {
		return UserFamily(p)
	}
	return Hop
}

// Procedure is the full method name of op, /service/Method.
func (f Family) Procedure(op transport.Op) string { return "/" + f.Service + "/" + Methods[op] }

// Wrap frames a model's body for f.
func (f Family) Wrap(model string, body []byte) (*Frame, error) {
	if f.Model != "" {
		return &Frame{Body: body}, nil
	}
	return wrap(model, body)
}

// Unwrap reads a frame of f: its model and body.
func (f Family) Unwrap(b []byte) (string, []byte, error) {
	if f.Model != "" {
		return f.Model, b, nil
	}
	return unwrap(b)
}

var (
	protoCodec, _ = codec.Lookup("proto")
	noCompression = mustCompression("none")
)

func mustCompression(name string) codec.Compression {
	z, err := codec.LookupCompression(name)
	if err != nil {
		panic(err)
	}
	return z
}

// Serve answers a call of op on f, its frame in: the handler decodes,
// works and encodes; the reply is framed for f.
func Serve(ctx context.Context, h transport.Handler, f Family, op transport.Op, in []byte) (*Frame, error) {
	req := &transport.Request{Op: op, Codec: protoCodec, Compression: noCompression}
	if op == transport.OpGet {
		var gr pb.GetRequest
		if err := proto.Unmarshal(in, &gr); err != nil {
			return nil, transport.Errorf(transport.CodeBadRequest, "decoding GetRequest: %w", err)
		}
		req.Model, req.Count = gr.Model, int(gr.Count)
		if f.Model != "" && gr.Model != f.Model {
			return nil, transport.Errorf(transport.CodeBadRequest, "%s serves %s, not %q", f.Service, f.Model, gr.Model)
		}
	} else {
		var err error
		if req.Model, req.Body, err = f.Unwrap(in); err != nil {
			return nil, err
		}
	}
	reply, err := h.Bytes(ctx, req)
	if err != nil {
		return nil, err
	}
	if op == transport.OpPost {
		return &Frame{Body: reply}, nil // an encoded Ack
	}
	return f.Wrap(req.Model, reply)
}

// Call is a client's call as frames: the family, the procedure and the
// request's frame.
func Call(req *transport.Request) (Family, *Frame, error) {
	f := FamilyOf(req.Model)
	switch req.Op {
	case transport.OpGet:
		b, err := proto.Marshal(&pb.GetRequest{Model: req.Model, Count: int64(req.Count)})
		return f, &Frame{Body: b}, err
	case transport.OpPost, transport.OpEcho:
		in, err := f.Wrap(req.Model, req.Body)
		return f, in, err
	case transport.OpFeed:
		b, err := proto.Marshal(&pb.FeedRequest{Model: req.Model, Count: int64(req.Count), Messages: int64(req.Messages)})
		return f, &Frame{Body: b}, err
	}
	return f, nil, transport.Errorf(transport.CodeBadRequest, "unknown operation %q", req.Op)
}

// Reply is the body of a reply frame to op: an Ack as it came, a model's
// unwrapped.
func (f Family) Reply(op transport.Op, out []byte) ([]byte, error) {
	if op == transport.OpPost {
		return out, nil
	}
	_, body, err := f.Unwrap(out)
	return body, err
}

var payloadFields = pb.File_hopbench_v1_service_proto.Messages().ByName("Payload").Fields()

// wrap puts a model's encoding into the Payload field named after the model.
func wrap(model string, body []byte) (*Frame, error) {
	fd := payloadFields.ByName(protoreflect.Name(model))
	if fd == nil {
		return nil, transport.Errorf(transport.CodeNotFound, "no Payload field for model %q", model)
	}
	header := protowire.AppendTag(nil, fd.Number(), protowire.BytesType)
	header = protowire.AppendVarint(header, uint64(len(body)))
	return &Frame{Header: header, Body: body}, nil
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
