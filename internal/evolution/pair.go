package evolution

import (
	"fmt"
	"sync"

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
	return inVersion(msg, p.V2(), p.Changed, p.Model, v)
}

func (p Pair) Changes() []Change { return p.Changed }

// pairs are the Pairs this process registered (RegisterPair), by model:
// nodes and generators of a user's message in two versions.
var pairs sync.Map // string -> Pair

// RegisterPair makes the versions of p's model p's, in this process: what
// a node of v2 decodes into, what a sender of v2 sends, and the changes a
// run's schema trials try (SchemaFor).
func RegisterPair(p Pair) { pairs.Store(p.Model, p) }

func pairOf(model string) (Pair, bool) {
	p, ok := pairs.Load(model)
	if !ok {
		return Pair{}, false
	}
	return p.(Pair), true
}

// SchemaFor is the schema whose changes a run of model tries: its Pair's
// when one is registered, else the payload schema's.
func SchemaFor(model string) Schema {
	if p, ok := pairOf(model); ok {
		return p
	}
	return BuiltIn
}
