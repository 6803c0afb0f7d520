package evolution

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/codec"
)

// Outcome is what became of a field a message carried along a path.
type Outcome string

// Outcomes, in the order tables list them.
const (
	Kept      Outcome = "kept"      // came back as sent
	Dropped   Outcome = "dropped"   // came back empty: silently lost
	Corrupted Outcome = "corrupted" // came back with another value
	Refused   Outcome = "refused"   // a node (or the sender) could not decode or encode the message
	NotSent   Outcome = "not sent"  // the sender's version has no such field
)

// Trial is one message of a change's model sent along a path in one codec,
// and what came back.
type Trial struct {
	Codec  string `json:"codec"`
	Change string `json:"change"`
	Path   string `json:"path"`
	// Count is the items the message carried.
	Count int `json:"count"`
	// Outcome is the changed field's; Others that of every other field
	// (kept, or corrupted when the change disturbed what it did not touch).
	// A refused message has both refused.
	Outcome Outcome `json:"outcome"`
	Others  Outcome `json:"others"`
	// Detail says what differed, or where the message was refused and why.
	Detail string `json:"detail,omitempty"`
	// SentBytes and ReplyBytes are the body the sender sent and the one it
	// read back (zero when refused).
	SentBytes  int `json:"sent_bytes"`
	ReplyBytes int `json:"reply_bytes,omitempty"`
}

// Carrier takes the body a sender sends and returns the reply's body, or
// an error saying which hop refused the message.
type Carrier func(body []byte) ([]byte, error)

// Schema is a model's schema in its two versions, v1 and v2, and the
// changes between them: the payload schema's (BuiltIn), or a user's two
// .proto versions (internal/userschema).
type Schema interface {
	// New is an empty message of model in version v.
	New(model string, v Version) (proto.Message, error)
	// Message is model's message of count items from seed in version v,
	// with the fields v added filled.
	Message(model string, v Version, count int, seed uint64) (proto.Message, error)
	// Changes are the changes v2 makes.
	Changes() []Change
}

// BuiltIn is the payload schema's versions, schema/hopbench/v1 and v2.
var BuiltIn Schema = builtIn{}

type builtIn struct{}

func (builtIn) New(model string, v Version) (proto.Message, error) { return NewMessage(model, v) }

func (builtIn) Message(model string, v Version, count int, seed uint64) (proto.Message, error) {
	return Message(model, v, count, seed)
}

func (builtIn) Changes() []Change { return Changes }

// Run is Through with the path's nodes in process: each decodes the body
// into its own version's message and encodes that on, the last echoes,
// and the replies pass the nodes back. It is what the nodes of an echo
// chain do with a body, in the same codec code, without the network.
func Run(c codec.Codec, ch Change, p Path, count int, seed uint64) (Trial, error) {
	return RunIn(BuiltIn, c, ch, p, count, seed)
}

// RunIn is Run in schema s.
func RunIn(s Schema, c codec.Codec, ch Change, p Path, count int, seed uint64) (Trial, error) {
	return ThroughIn(s, c, ch, p, count, seed, inProcess(s, c, ch.Model, p))
}

// Through is ThroughIn the payload schema's versions.
func Through(c codec.Codec, ch Change, p Path, count int, seed uint64, carry Carrier) (Trial, error) {
	return ThroughIn(BuiltIn, c, ch, p, count, seed, carry)
}

// ThroughIn sends a message of count items of the change's model, made in
// the path's first version of s (with the change's value where it sets
// one), through carry in codec c, decodes the reply in that version, and
// compares the two field by field.
func ThroughIn(s Schema, c codec.Codec, ch Change, p Path, count int, seed uint64, carry Carrier) (Trial, error) {
	t := Trial{Codec: c.Name(), Change: ch.Name, Path: p.String(), Count: count}
	sent, err := s.Message(ch.Model, p[0], count, seed)
	if err != nil {
		return t, err
	}
	field := ch.field(p[0])
	if v, ok := ch.Sent[p[0]]; ok && field != "" {
		set(sent.ProtoReflect(), field, v)
	}
	back, refused := t.carry(s, c, ch.Model, sent, p[0], carry)
	if refused != "" {
		t.Outcome, t.Others, t.Detail = Refused, Refused, refused
		return t, nil
	}
	t.Outcome, t.Detail = NotSent, fmt.Sprintf("a %s sender has no such field", p[0])
	if field != "" {
		t.Outcome, t.Detail = compare(values(sent.ProtoReflect(), field), values(back.ProtoReflect(), field))
	}
	t.Others = others(s.Changes(), sent, back, ch.Model, p[0])
	return t, nil
}

// carry sends sent through carry and returns the message the sender reads
// back, or who refused it and why.
func (t *Trial) carry(s Schema, c codec.Codec, model string, sent proto.Message, sender Version, carry Carrier) (proto.Message, string) {
	body, err := c.Marshal(sent)
	if err != nil {
		return nil, fmt.Sprintf("the %s sender could not encode its message: %v", sender, err)
	}
	t.SentBytes = len(body)
	reply, err := carry(body)
	if err != nil {
		return nil, err.Error()
	}
	t.ReplyBytes = len(reply)
	back, err := s.New(model, sender)
	if err != nil {
		return nil, err.Error()
	}
	if err := c.Unmarshal(reply, back); err != nil {
		return nil, fmt.Sprintf("the %s sender could not decode the reply: %v", sender, err)
	}
	return back, ""
}

// InProcess carries a body through p's nodes in process (see Run).
func InProcess(c codec.Codec, model string, p Path) Carrier { return inProcess(BuiltIn, c, model, p) }

func inProcess(s Schema, c codec.Codec, model string, p Path) Carrier {
	return func(body []byte) ([]byte, error) {
		hops := p.hops()
		for i, v := range hops[:len(hops)-1] { // the last is the sender's, which Through decodes
			msg, err := s.New(model, v)
			if err != nil {
				return nil, err
			}
			if err := c.Unmarshal(body, msg); err != nil {
				return nil, fmt.Errorf("%s could not decode: %w", hopName(p, i), err)
			}
			if body, err = c.Marshal(msg); err != nil {
				return nil, fmt.Errorf("%s could not encode: %w", hopName(p, i), err)
			}
		}
		return body, nil
	}
}

// hopName names the i-th decoder of p.hops: "node 2 (v1)", "node 1 (v2)
// on the way back", "the v2 sender".
func hopName(p Path, i int) string {
	nodes := len(p) - 1
	switch {
	case i < nodes:
		return fmt.Sprintf("node %d (%s)", i+1, p[i+1])
	case i < 2*nodes-1:
		n := 2*nodes - 1 - i
		return fmt.Sprintf("node %d (%s) on the way back", n, p[n])
	}
	return fmt.Sprintf("the %s sender, reading the reply,", p[0])
}

// compare reads the changed field's values item by item: kept when every
// one came back, dropped when some came back empty and none changed,
// corrupted when any came back different.
func compare(sent, back []value) (Outcome, string) {
	if len(sent) != len(back) {
		return Corrupted, fmt.Sprintf("%d items sent, %d came back", len(sent), len(back))
	}
	var dropped, corrupted int
	var example string
	for i, s := range sent {
		b := back[i]
		switch {
		case b.v.Equal(s.v):
		case !b.set:
			dropped++
		default:
			corrupted++
			if example == "" {
				example = fmt.Sprintf("%v came back as %v", s.v.Interface(), b.v.Interface())
			}
		}
	}
	switch {
	case corrupted > 0:
		return Corrupted, fmt.Sprintf("%d of %d items: %s", corrupted, len(sent), example)
	case dropped > 0:
		return Dropped, fmt.Sprintf("%d of %d items came back empty", dropped, len(sent))
	}
	return Kept, ""
}

// others compares every field no change of the model touches: those the
// changes touch differ between the versions by design.
func others(changes []Change, sent, back proto.Message, model string, v Version) Outcome {
	s, b := proto.Clone(sent), proto.Clone(back)
	for _, ch := range changes {
		if f := ch.field(v); ch.Model == model && f != "" {
			clearField(s.ProtoReflect(), f)
			clearField(b.ProtoReflect(), f)
		}
	}
	if proto.Equal(s, b) {
		return Kept
	}
	return Corrupted
}

// Matrix runs every change along every path in every codec, count items a
// message.
func Matrix(codecs []codec.Codec, paths []Path, count int, seed uint64) ([]Trial, error) {
	return MatrixIn(BuiltIn, codecs, paths, count, seed)
}

// MatrixIn is Matrix in schema s.
func MatrixIn(s Schema, codecs []codec.Codec, paths []Path, count int, seed uint64) ([]Trial, error) {
	var out []Trial
	for _, p := range paths {
		for _, ch := range s.Changes() {
			for _, c := range codecs {
				t, err := RunIn(s, c, ch, p, count, seed)
				if err != nil {
					return nil, fmt.Errorf("%s %s over %s: %w", c.Name(), ch.Name, p, err)
				}
				out = append(out, t)
			}
		}
	}
	return out, nil
}
