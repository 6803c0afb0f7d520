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
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/userschema"
	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

// Frame is a message as bytes: an optional header (the Payload field's
// tag and length, or in JSON the object's opening) and tail (JSON's
// closing brace) around the body, kept apart so the body is not copied
// where a library takes several buffers. A received frame is all body.
type Frame struct {
	Header, Body, Tail []byte
	// JSON says the frame is in the proto JSON mapping (Connect's json
	// codec), not Protobuf: set by the codec that read it.
	JSON bool
}

// Bytes is the frame as one slice (a copy when it has a header).
func (f *Frame) Bytes() []byte {
	if len(f.Header) == 0 && len(f.Tail) == 0 {
		return f.Body
	}
	return append(append(append(make([]byte, 0, len(f.Header)+len(f.Body)+len(f.Tail)), f.Header...), f.Body...), f.Tail...)
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

// serves refuses a request for a model f does not carry: a user's
// message's service carries its own only.
func (f Family) serves(model string) error {
	if f.Model != "" && model != f.Model {
		return transport.Errorf(transport.CodeBadRequest, "%s serves %s, not %q", f.Service, f.Model, model)
	}
	return nil
}

// wrap frames a model's body for f, in JSON or Protobuf.
func (f Family) wrap(json bool, model string, body []byte) (*Frame, error) {
	switch {
	case f.Model != "":
		return &Frame{Body: body, JSON: json}, nil
	case json:
		return wrapJSON(model, body)
	}
	return wrap(model, body)
}

// unwrap reads a frame of f: its model and body.
func (f Family) unwrap(in *Frame) (string, []byte, error) {
	switch {
	case f.Model != "":
		return f.Model, in.Body, nil
	case in.JSON:
		return unwrapJSON(in.Body)
	}
	return unwrap(in.Body)
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
// works and encodes; the reply is framed for f in the frame's format.
func Serve(ctx context.Context, h transport.Handler, f Family, op transport.Op, in *Frame) (*Frame, error) {
	req := &transport.Request{Op: op, Codec: bodyCodec(in.JSON), Compression: noCompression}
	if op == transport.OpGet {
		var gr pb.GetRequest
		if err := decodeRequest(in, &gr); err != nil {
			return nil, err
		}
		req.Model, req.Count = gr.Model, int(gr.Count)
		if err := f.serves(gr.Model); err != nil {
			return nil, err
		}
	} else {
		var err error
		if req.Model, req.Body, err = f.unwrap(in); err != nil {
			return nil, err
		}
	}
	reply, err := h.Bytes(ctx, req)
	if err != nil {
		return nil, err
	}
	if op == transport.OpPost {
		return &Frame{Body: reply, JSON: in.JSON}, nil // an encoded Ack
	}
	return f.wrap(in.JSON, req.Model, reply)
}

// Call is a client's call as frames: the family, the procedure and the
// request's frame, in JSON when the request's codec is the proto JSON
// mapping.
func Call(req *transport.Request) (Family, *Frame, error) {
	f, json := FamilyOf(req.Model), IsJSON(req.Codec)
	switch req.Op {
	case transport.OpGet:
		in, err := encodeRequest(json, &pb.GetRequest{Model: req.Model, Count: int64(req.Count)})
		return f, in, err
	case transport.OpPost, transport.OpEcho:
		in, err := f.wrap(json, req.Model, req.Body)
		return f, in, err
	case transport.OpFeed:
		in, err := encodeRequest(json, &pb.FeedRequest{Model: req.Model, Count: int64(req.Count), Messages: int64(req.Messages)})
		return f, in, err
	}
	return f, nil, transport.Errorf(transport.CodeBadRequest, "unknown operation %q", req.Op)
}

// Reply is the body of a reply frame to op: an Ack as it came, a model's
// unwrapped.
func (f Family) Reply(op transport.Op, out *Frame) ([]byte, error) {
	if op == transport.OpPost {
		return out.Body, nil
	}
	_, body, err := f.unwrap(out)
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
