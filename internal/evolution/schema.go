package evolution

import (
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/transport"
)

// What a node or a generator of a version decodes into and sends. The zero
// Version is v1, so code that never names a version is v1's and pays
// nothing for the others.

// IsV1 says whether v is v1, the zero Version included.
func (v Version) IsV1() bool { return v == "" || v == V1 }

// Check says why v is no version (nil for a known one or the zero one).
func (v Version) Check() error {
	if v.IsV1() {
		return nil
	}
	_, err := ParseVersion(string(v))
	return err
}

// NewReply is an empty message of the kind a reply to op carries, in
// version v: a post's acknowledgement (the same in every version), else
// the model's message.
func (v Version) NewReply(op transport.Op, m payload.Model) proto.Message {
	if op == transport.OpPost {
		return transport.NewReply(op, m)
	}
	return v.New(m)
}

// New is an empty message of model m in version v.
func (v Version) New(m payload.Model) proto.Message {
	if v.IsV1() {
		return m.New()
	}
	if p, ok := pairOf(m.Name); ok {
		return p.V2()
	}
	mt := v2Types()[m.Name]
	if mt == nil {
		// schema/hopbench/v2 is v1 changed: a model without its v2 message
		// is a schema that was not regenerated (make generate).
		panic("schema v2 has no message for model " + m.Name)
	}
	return mt.New().Interface()
}

// Message is the model's message of count items from seed in version v:
// the generator's (v1) message, carried into v by field number, fields v
// lacks left out, and the fields v added filled as a service of v fills
// them (each change's value), so that old nodes have unknown fields to
// carry or drop.
func (v Version) Message(m payload.Model, count int, seed uint64) (proto.Message, error) {
	if p, ok := pairOf(m.Name); ok {
		return p.Message(m.Name, v, count, seed)
	}
	msg, err := m.Message(count, seed)
	if err != nil || v.IsV1() {
		return msg, err
	}
	return inVersion(msg, v.New(m), Changes, m.Name, v)
}

// inVersion is msg, a v1 message of model, carried into the empty message
// into of version v by field number, with the fields v added set to their
// changes' values, so that old nodes have unknown fields to carry or drop.
func inVersion(msg, into proto.Message, changes []Change, model string, v Version) (proto.Message, error) {
	out, err := convert(msg, into)
	if err != nil {
		return nil, err
	}
	for _, ch := range changes {
		if val, ok := ch.Sent[v]; ok && ch.Model == model && ch.added(v) {
			set(out.ProtoReflect(), ch.field(v), val)
		}
	}
	return out, nil
}

// Len counts the items of msg, a message of m in version v: the model's
// count is defined on v1, so a v2 message is counted through v1 (its
// fields by number; a widened scalar's value does not count).
func (v Version) Len(m payload.Model, msg proto.Message) int {
	if v.IsV1() {
		return m.Len(msg)
	}
	old, err := convert(msg, m.New())
	if err != nil {
		return -1
	}
	return m.Len(old)
}

// convert carries msg into the empty message into, of another version, by
// field number, leaving out the fields into's version lacks.
func convert(msg, into proto.Message) (proto.Message, error) {
	b, err := proto.Marshal(msg)
	if err != nil {
		return nil, err
	}
	return into, proto.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(b, into)
}

var v2Types = sync.OnceValue(func() map[string]protoreflect.MessageType {
	out := map[string]protoreflect.MessageType{}
	for _, m := range payload.Models() {
		name := m.New().ProtoReflect().Descriptor().Name()
		if mt, err := protoregistry.GlobalTypes.FindMessageByName(protoreflect.FullName("hopbench.v2." + string(name))); err == nil {
			out[m.Name] = mt
		}
	}
	return out
})
