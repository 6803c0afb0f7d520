package evolution

import (
	"fmt"

	"google.golang.org/protobuf/proto"
)

// Pair is a Schema of one model made at run time in two versions, such as
// a user's two .proto versions: a v1 message is Generate's, a v2 message
// v1's carried into v2 by field number, with the fields v2 added set to
// their changes' values, as Message does for the payload schema's.
type Pair struct {
	Model string
	// V1 and V2 make an empty message of each version.
	V1, V2 func() proto.Message
	// Generate makes v1's message of count items from seed.
	Generate func(count int, seed uint64) (proto.Message, error)
	// Changed are the changes v2 makes.
	Changed []Change
}

func (p Pair) check(model string, v Version) error {
	if model != p.Model {
		return fmt.Errorf("schema of %s has no model %q", p.Model, model)
	}
	return v.Check()
}

func (p Pair) New(model string, v Version) (proto.Message, error) {
	if err := p.check(model, v); err != nil {
		return nil, err
	}
	if v.IsV1() {
		return p.V1(), nil
	}
	return p.V2(), nil
}

func (p Pair) Message(model string, v Version, count int, seed uint64) (proto.Message, error) {
	if err := p.check(model, v); err != nil {
		return nil, err
	}
	msg, err := p.Generate(count, seed)
	if err != nil || v.IsV1() {
		return msg, err
	}
	out, err := convert(msg, p.V2())
	if err != nil {
		return nil, err
	}
	for _, ch := range p.Changed {
		if val, ok := ch.Sent[v]; ok && ch.added(v) {
			set(out.ProtoReflect(), ch.field(v), val)
		}
	}
	return out, nil
}

func (p Pair) Changes() []Change { return p.Changed }
