package codec

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/soe"
	"google.golang.org/protobuf/proto"
)

// avroResolvedCodec is Avro as its specification has readers and writers
// of different schemas talk: each body is a single object (soe: a two-byte
// marker and the CRC-64-AVRO fingerprint of the writer's schema, then the
// binary body), and the reader resolves the writer's schema against its
// own (fields matched by name, the writer's fields the reader lacks
// skipped, the reader's the writer lacks given their defaults, int read as
// long). Writers' schemas are found by fingerprint among those of every
// version of the payload schema, which every hopbench process knows: the
// schema registry a deployment would run.
type avroResolvedCodec struct {
	*avroCodec
	headers  map[avro.Schema][]byte
	writers  map[[8]byte]avro.Schema
	compat   *avro.SchemaCompatibility
	resolved sync.Map // [2][8]byte{reader, writer} -> resolution
	// dynHeaders and dynWriters are the headers and writers of users'
	// schemas, added as they are first used: a process that knows two
	// versions of a user's message resolves one against the other.
	dynHeaders sync.Map // avro.Schema -> []byte
	dynWriters sync.Map // [8]byte -> avro.Schema
}

// header is the single-object header of s.
func (c *avroResolvedCodec) header(s avro.Schema) ([]byte, error) {
	if h, ok := c.headers[s]; ok {
		return h, nil
	}
	if h, ok := c.dynHeaders.Load(s); ok {
		return h.([]byte), nil
	}
	h, err := soe.BuildHeader(s)
	if err != nil {
		return nil, fmt.Errorf("avro fingerprint: %w", err)
	}
	c.dynHeaders.Store(s, h)
	c.dynWriters.Store([8]byte(h[len(soe.Magic):]), s)
	return h, nil
}

// resolution is a reader's schema resolved against a writer's, or why
// not, and the APIs that decode with it.
type resolution struct {
	schema avro.Schema
	err    error
	apis   *avroAPIs
}

func newAvroResolvedCodec(plain *avroCodec) *avroResolvedCodec {
	c := &avroResolvedCodec{avroCodec: plain, headers: map[avro.Schema][]byte{}, writers: map[[8]byte]avro.Schema{}, compat: avro.NewSchemaCompatibility()}
	for _, s := range plain.schemas {
		h, err := soe.BuildHeader(s)
		if err != nil {
			panic(fmt.Sprintf("avro fingerprint of %s: %v", s.(avro.NamedSchema).FullName(), err)) // our own schemas
		}
		c.headers[s] = h
		c.writers[[8]byte(h[len(soe.Magic):])] = s
	}
	return c
}

func (*avroResolvedCodec) Name() string { return "avro-resolved" }

func (*avroResolvedCodec) SchemaEvolution() string {
	return "Avro with the writer's schema named in each body (single-object encoding) and resolved against the reader's: fields match by name, added fields take their defaults, int widens to long"
}

// ContentType names Avro's single-object encoding, which no media type
// registers; it keeps the REST transport from taking these bodies for
// plain Avro.
func (*avroResolvedCodec) ContentType() string { return "avro/single-object" }

func (c *avroResolvedCodec) Marshal(m proto.Message) ([]byte, error) {
	s, err := c.schema(m)
	if err != nil {
		return nil, err
	}
	body, err := c.marshal(s, m)
	if err != nil {
		return nil, err
	}
	h, err := c.header(s)
	if err != nil {
		return nil, err
	}
	return append(h[:len(h):len(h)], body...), nil
}

func (c *avroResolvedCodec) Unmarshal(data []byte, m proto.Message) error {
	reader, err := c.schema(m)
	if err != nil {
		return err
	}
	rh, err := c.header(reader) // known, so a writer of the same schema is found
	if err != nil {
		return err
	}
	fp, body, err := soe.ParseHeader(data)
	if err != nil {
		return fmt.Errorf("avro single object: %w", err)
	}
	writer, ok := c.writers[[8]byte(fp)]
	if w, dyn := c.dynWriters.Load([8]byte(fp)); dyn {
		writer, ok = w.(avro.Schema), true
	}
	if !ok {
		return fmt.Errorf("avro single object: no known schema has fingerprint %x", fp)
	}
	if writer == reader || bytes.Equal(fp, rh[len(soe.Magic):]) {
		// The same schema, by its fingerprint: two descriptors of one
		// user's message in a process derive equal schemas, not one.
		return c.apisOf(m).unmarshal(reader, body, m)
	}
	if _, dyn := isDynamic(m); dyn && recursive(m.ProtoReflect().Descriptor()) {
		// hamba/avro's SchemaCompatibility.Resolve recurses without end on
		// a record that contains itself (v2.31.0): refused, not crashed.
		return fmt.Errorf("avro: cannot resolve the writer's schema of %s against the reader's: it contains itself, and hamba/avro's resolution does not end on such a record", m.ProtoReflect().Descriptor().FullName())
	}
	key := [2][8]byte{[8]byte(rh[len(soe.Magic):]), [8]byte(fp)}
	r, ok := c.resolved.Load(key)
	if !ok {
		s, err := c.compat.Resolve(reader, writer)
		apis := c.avroAPIs
		if _, dyn := isDynamic(m); dyn {
			apis = newAvroAPIs()
		}
		r, _ = c.resolved.LoadOrStore(key, resolution{s, err, apis})
	}
	res := r.(resolution)
	if res.err != nil {
		return fmt.Errorf("avro: the writer's %s cannot be read as the reader's: %w", writer.(avro.NamedSchema).FullName(), res.err)
	}
	return res.apis.unmarshal(res.schema, body, m)
}
