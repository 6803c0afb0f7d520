package codec

import (
	"encoding/json"
	"fmt"

	"github.com/hamba/avro/v2"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

// avroCodec is Avro binary encoding via hamba/avro. Avro needs a schema; each
// one is derived from the proto descriptor of the message, so the two schema
// languages cannot drift apart (see AvroSchema).
type avroCodec struct {
	api     avro.API
	schemas map[protoreflect.FullName]avro.Schema
}

func newAvroCodec() *avroCodec {
	c := &avroCodec{
		api: avro.Config{
			TagKey: "json", // field names are the proto names, as in the json tags
			// The default of 1 MiB is below the study's 3.4 MB PDF.
			MaxByteSliceSize: DefaultMaxBytes,
		}.Freeze(),
		schemas: make(map[protoreflect.FullName]avro.Schema),
	}
	msgs := pb.File_hopbench_v1_payload_proto.Messages()
	for i := range msgs.Len() {
		md := msgs.Get(i)
		s, err := avro.Parse(AvroSchema(md))
		if err != nil {
			panic(fmt.Sprintf("avro schema for %s: %v", md.FullName(), err)) // derived from our own schema
		}
		c.schemas[md.FullName()] = s
	}
	return c
}

func (*avroCodec) Name() string { return "avro" }

// ContentType is the media type Avro's own HTTP transport uses.
func (*avroCodec) ContentType() string { return "avro/binary" }

func (c *avroCodec) schema(m proto.Message) (avro.Schema, error) {
	name := m.ProtoReflect().Descriptor().FullName()
	s, ok := c.schemas[name]
	if !ok {
		return nil, fmt.Errorf("avro: no schema for message %s", name)
	}
	return s, nil
}

func (c *avroCodec) Marshal(m proto.Message) ([]byte, error) {
	s, err := c.schema(m)
	if err != nil {
		return nil, err
	}
	return c.api.Marshal(s, m)
}

func (c *avroCodec) Unmarshal(data []byte, m proto.Message) error {
	s, err := c.schema(m)
	if err != nil {
		return err
	}
	return c.api.Unmarshal(s, data, m)
}

// AvroSchema returns the Avro schema (JSON) of a message: a record per
// message, an array per repeated field, a nullable record per singular message
// field (proto3 message fields may be absent), enums as int (they are int32
// in Go and on the proto wire).
func AvroSchema(md protoreflect.MessageDescriptor) string {
	b, err := json.Marshal(avroRecord(md, map[protoreflect.FullName]bool{}))
	if err != nil {
		panic(err) // maps of strings and slices always marshal
	}
	return string(b)
}

func avroRecord(md protoreflect.MessageDescriptor, defined map[protoreflect.FullName]bool) any {
	if defined[md.FullName()] {
		return string(md.FullName())
	}
	defined[md.FullName()] = true
	fds := md.Fields()
	fields := make([]map[string]any, 0, fds.Len())
	for i := range fds.Len() {
		fd := fds.Get(i)
		field := map[string]any{"name": string(fd.Name())}
		switch {
		case fd.IsList():
			field["type"] = map[string]any{"type": "array", "items": avroScalarOrRecord(fd, defined)}
			field["default"] = []any{}
		case fd.Kind() == protoreflect.MessageKind:
			field["type"] = []any{"null", avroScalarOrRecord(fd, defined)}
			field["default"] = nil
		default:
			field["type"] = avroScalarOrRecord(fd, defined)
		}
		fields = append(fields, field)
	}
	return map[string]any{
		"type":      "record",
		"name":      string(md.Name()),
		"namespace": string(md.ParentFile().Package()),
		"fields":    fields,
	}
}

func avroScalarOrRecord(fd protoreflect.FieldDescriptor, defined map[protoreflect.FullName]bool) any {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return "boolean"
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind, protoreflect.EnumKind:
		return "int"
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind,
		protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return "long"
	case protoreflect.FloatKind:
		return "float"
	case protoreflect.DoubleKind:
		return "double"
	case protoreflect.StringKind:
		return "string"
	case protoreflect.BytesKind:
		return "bytes"
	case protoreflect.MessageKind:
		return avroRecord(fd.Message(), defined)
	}
	panic(fmt.Sprintf("avro: proto kind %v of %s has no Avro mapping", fd.Kind(), fd.FullName()))
}
