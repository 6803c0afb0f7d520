// Package codec turns payload messages into bytes and back. Every codec works
// on the same generated message types, so the same logical data is carried
// whichever codec a stack uses, and codec cost is a choice measured like any other.
package codec

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"
)

// DefaultMaxBytes bounds a decoded or decompressed message unless told
// otherwise: 64 MiB, the largest payload the conformance suite carries.
const DefaultMaxBytes = 64 << 20

// Codec is the contract every body format implements. Implementations are
// safe for concurrent use.
type Codec interface {
	// Name is the registry name, e.g. "json" or "proto".
	Name() string
	// ContentType is the media type of the encoded bytes, for HTTP headers.
	ContentType() string
	Marshal(m proto.Message) ([]byte, error)
	// Unmarshal decodes data into m, which must be empty.
	Unmarshal(data []byte, m proto.Message) error
}

// Evolving is implemented by codecs with a schema that says how messages
// may change: SchemaEvolution says how, for hopbench advise.
type Evolving interface{ SchemaEvolution() string }

// ErrTooLarge is returned (wrapped) when a message exceeds its size limit.
var ErrTooLarge = errors.New("message too large")

// codecs is the closed set of body formats, in report order. It is built
// once and never changed.
var codecs = []Codec{
	jsonCodec{},
	jsonFastCodec{},
	protoCodec{},
	newMsgpackCodec(),
	newCBORCodec(),
	avroPlain,
	newAvroResolvedCodec(avroPlain),
}

var avroPlain = newAvroCodec()

// Names returns the codec names, in report order.
func Names() []string {
	names := make([]string, len(codecs))
	for i, c := range codecs {
		names[i] = c.Name()
	}
	return names
}

// All returns every codec, in report order.
func All() []Codec { return slices.Clone(codecs) }

// Lookup returns the codec called name, or an error listing the known ones.
func Lookup(name string) (Codec, error) {
	for _, c := range codecs {
		if c.Name() == name {
			return c, nil
		}
	}
	return nil, fmt.Errorf("unknown codec %q (known: %s)", name, strings.Join(Names(), ", "))
}

// ForContentType returns the first codec whose media type matches a
// Content-Type or Accept value (parameters ignored); for application/json that
// is encoding/json, the reference implementation.
func ForContentType(contentType string) (Codec, error) {
	mediaType, _, _ := strings.Cut(contentType, ";")
	mediaType = strings.ToLower(strings.TrimSpace(mediaType))
	for _, c := range codecs {
		if c.ContentType() == mediaType {
			return c, nil
		}
	}
	types := make([]string, 0, len(codecs))
	for _, c := range codecs {
		if !slices.Contains(types, c.ContentType()) {
			types = append(types, c.ContentType())
		}
	}
	return nil, fmt.Errorf("unsupported media type %q (supported: %s)", contentType, strings.Join(types, ", "))
}
