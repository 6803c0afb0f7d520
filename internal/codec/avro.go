package codec

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"sync"

	"github.com/hamba/avro/v2"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
	pbv2 "github.com/hopbench/hopbench/schema/hopbench/v2"
)

// avroCodec is Avro binary encoding via hamba/avro. Avro needs a schema; each
// one is derived from the proto descriptor of the message, so the two schema
// languages cannot drift apart (see AvroSchema).
//
// Decoding goes through hamba's Reader rather than its Unmarshal, which
// returns no error for input that ends early. Arrays are bounded by the
// input's size (no element takes less than a byte), so a few bytes declaring
// 2^30 elements are refused instead of allocated: one frozen API per
// power-of-two input size carries that bound.
type avroCodec struct {
	*avroAPIs // the payload schema's
	schemas   map[protoreflect.FullName]avro.Schema
	// dynamic are the schemas of users' messages (DynamicAvroSchema), by
	// descriptor, derived on first use, each with APIs of its own.
	dynamic sync.Map // protoreflect.MessageDescriptor -> dynamicAvro
}

// avroAPIs are frozen configurations: hamba caches an encoder and a
// decoder per schema fingerprint and Go type in each. A user's messages
// are all generic maps, and a named type's second use is its bare name in
// the fingerprint, so two versions of a user's schema would share each
// other's cached coders in one API: each schema (and each resolution of
// one against another) gets its own.
type avroAPIs struct {
	enc avro.API
	dec [bits.UintSize + 1]avroDecoder
}

func newAvroAPIs() *avroAPIs { return &avroAPIs{enc: avroConfig(0).Freeze()} }

// dynamicAvro is a user's message's schema and its APIs.
type dynamicAvro struct {
	schema avro.Schema
	apis   *avroAPIs
}

type avroDecoder struct {
	once    sync.Once
	readers sync.Pool
}

func avroConfig(maxElements int) avro.Config {
	return avro.Config{
		TagKey: "json", // field names are the proto names, as in the json tags
		// The default of 1 MiB is below the study's 3.4 MB PDF.
		MaxByteSliceSize:  DefaultMaxBytes,
		MaxSliceAllocSize: maxElements,
	}
}

func newAvroCodec() *avroCodec {
	c := &avroCodec{
		avroAPIs: newAvroAPIs(),
		schemas:  make(map[protoreflect.FullName]avro.Schema),
	}
	// v2 is the payload schema's second version, for schema evolution.
	for _, file := range []protoreflect.FileDescriptor{pb.File_hopbench_v1_payload_proto, pb.File_hopbench_v1_service_proto, pbv2.File_hopbench_v2_payload_proto} {
		msgs := file.Messages()
		for i := range msgs.Len() {
			md := msgs.Get(i)
			if md.Oneofs().Len() > 0 {
				continue // Payload: a gRPC envelope, never a body in another codec
			}
			// Each message parses alone: v1's and v2's records share
			// their names (as Avro's resolution needs) and not their fields.
			s, err := avro.ParseWithCache(AvroSchema(md), "", &avro.SchemaCache{})
			if err != nil {
				panic(fmt.Sprintf("avro schema for %s: %v", md.FullName(), err)) // derived from our own schema
			}
			c.schemas[md.FullName()] = s
		}
	}
	return c
}

func (*avroCodec) Name() string { return "avro" }

func (*avroCodec) SchemaEvolution() string {
	return "Avro: the reader resolves the writer's schema against its own; fields added with defaults keep old and new peers compatible"
}

// ContentType is the media type Avro's own HTTP transport uses.
func (*avroCodec) ContentType() string { return "avro/binary" }

func (c *avroCodec) schema(m proto.Message) (avro.Schema, error) {
	if _, ok := isDynamic(m); ok {
		d, err := c.dynamicSchema(m.ProtoReflect().Descriptor())
		return d.schema, err
	}
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
	return c.marshal(s, m)
}

// marshal writes m with s: a user's message as its generic values, with
// its schema's APIs.
func (c *avroCodec) marshal(s avro.Schema, m proto.Message) ([]byte, error) {
	d, ok := isDynamic(m)
	if !ok {
		return c.enc.Marshal(s, m)
	}
	t, err := avroTree(d)
	if err != nil {
		return nil, err
	}
	return c.marshalTree(s, t, d)
}

// marshalTree writes a user's message's generic values. hamba/avro builds
// its encoders from the values' Go types as it meets them, and has
// panicked on shapes of a user's schema no test here foresaw: such a
// message is refused with an error naming it, not a crashed process.
func (c *avroCodec) marshalTree(s avro.Schema, t map[string]any, d protoreflect.Message) (b []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			b, err = nil, fmt.Errorf("avro: hamba/avro cannot encode %s (%v); choose another codec for this message", d.Descriptor().FullName(), p)
		}
	}()
	return c.apisOf(d.Interface()).enc.Marshal(s, t)
}

// apisOf are the APIs m's messages are coded with.
func (c *avroCodec) apisOf(m proto.Message) *avroAPIs {
	if _, ok := isDynamic(m); ok {
		if d, err := c.dynamicSchema(m.ProtoReflect().Descriptor()); err == nil {
			return d.apis
		}
	}
	return c.avroAPIs
}

// dynamicSchema is the schema of a user's message, derived once.
func (c *avroCodec) dynamicSchema(md protoreflect.MessageDescriptor) (dynamicAvro, error) {
	if d, ok := c.dynamic.Load(md); ok {
		return d.(dynamicAvro), nil
	}
	s, err := parseDynamicAvro(md)
	if err != nil {
		return dynamicAvro{}, err
	}
	d, _ := c.dynamic.LoadOrStore(md, dynamicAvro{schema: s, apis: newAvroAPIs()})
	return d.(dynamicAvro), nil
}

var errAvroTrailing = errors.New("avro: trailing bytes after the message")

func (c *avroCodec) Unmarshal(data []byte, m proto.Message) error {
	s, err := c.schema(m)
	if err != nil {
		return err
	}
	return c.apisOf(m).unmarshal(s, data, m)
}

// unmarshal decodes data written with schema s into m.
func (a *avroAPIs) unmarshal(s avro.Schema, data []byte, m proto.Message) error {
	size := bits.Len(uint(len(data))) // 1<<size > len(data)
	d := &a.dec[size]
	d.once.Do(func() {
		api := avroConfig(1 << size).Freeze()
		d.readers.New = func() any { return avro.NewReader(nil, 0, avro.WithReaderConfig(api)) }
	})
	r := d.readers.Get().(*avro.Reader)
	defer d.readers.Put(r)
	r.Reset(data)
	r.Error = nil // Reset keeps the last error, and the pool reuses readers
	dm, dynamic := isDynamic(m)
	var t any
	if dynamic {
		r.ReadVal(s, &t)
	} else {
		r.ReadVal(s, m)
	}
	if r.Error != nil {
		if errors.Is(r.Error, io.EOF) {
			return fmt.Errorf("avro: %w", io.ErrUnexpectedEOF)
		}
		return r.Error
	}
	if r.Peek(); r.Error == nil {
		return errAvroTrailing
	}
	if dynamic {
		return fromAvroTree(t, dm)
	}
	return nil
}

// AvroSchema returns the Avro schema (JSON) of a message: a record per
// message, an array per repeated field, a nullable record per singular message
// field (proto3 message fields may be absent), enums as int (they are int32
// in Go and on the proto wire). Every field has the default proto3 gives it
// (zero, empty, null), which Avro's resolution fills in where a writer lacks
// the field. Records are named hopbench.Name in every version of the
// payload schema, so that resolution matches a version's record with
// another's, as it matches records by full name.
func AvroSchema(md protoreflect.MessageDescriptor) string {
	b, err := json.Marshal(avroRecord(md, map[protoreflect.FullName]bool{}))
	if err != nil {
		panic(err) // maps of strings and slices always marshal
	}
	return string(b)
}

func avroRecord(md protoreflect.MessageDescriptor, defined map[protoreflect.FullName]bool) any {
	if defined[md.FullName()] {
		return "hopbench." + string(md.Name())
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
			field["default"] = avroZero(fd.Kind())
		}
		fields = append(fields, field)
	}
	return map[string]any{
		"type":      "record",
		"name":      string(md.Name()),
		"namespace": "hopbench",
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

// avroZero is the default of a scalar field of kind k: proto3's zero.
func avroZero(k protoreflect.Kind) any {
	switch k {
	case protoreflect.BoolKind:
		return false
	case protoreflect.StringKind, protoreflect.BytesKind:
		return ""
	}
	return 0
}
