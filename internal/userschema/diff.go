package userschema

import (
	"context"
	"fmt"
	"math/rand/v2"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/hopbench/hopbench/internal/evolution"
)

// Schema change kinds, named as the payload schema's changes are where
// they are the same kind (evolution.Changes).
const (
	FieldAdded      = "field-added"
	FieldRemoved    = "field-removed"
	FieldRenamed    = "field-renamed"
	FieldRenumbered = "field-renumbered"
	ScalarWidened   = "scalar-widened"
	ScalarNarrowed  = "scalar-narrowed"
	FieldRetyped    = "field-retyped"
	EnumValueAdded  = "enum-value-added"
	OneofChanged    = "oneof-changed"
)

// Evolution is the schema of a user's message in two versions, v1 and v2
// (the same message, changed), for the evolution trials: the changes
// between them field by field, each named KIND FIELD, with the value a
// sender gives the field where the change needs one to show (a value
// beyond the narrower type; a field only v2 has).
func Evolution(v1, v2 *Payload) (evolution.Pair, error) {
	model := string(v1.Message.FullName())
	changes := diffMessages(v1.Message, v2.Message, "items", "items", map[[2]protoreflect.FullName]bool{})
	if len(changes) == 0 {
		return evolution.Pair{}, fmt.Errorf("%s is the same in both versions: nothing changed to try", model)
	}
	for i := range changes {
		changes[i].Model = model
	}
	return evolution.Pair{
		Model:    model,
		V1:       func() proto.Message { return dynamicpb.NewMessage(v1.List) },
		V2:       func() proto.Message { return dynamicpb.NewMessage(v2.List) },
		Generate: func(count int, seed uint64) (proto.Message, error) { return v1.Model().Message(count, seed) },
		Changed:  changes,
	}, nil
}

// UsedPair is the message of model, which Use registered, as version 1,
// and the same message in files (its fill, none of its samples) as
// version 2, with the changes between them: version 1 is not compiled
// again, and its messages are those of the registered model.
func UsedPair(ctx context.Context, model string, files Files) (evolution.Pair, error) {
	p1, ok := Used(model)
	if !ok {
		return evolution.Pair{}, fmt.Errorf("version 1: %s is not a message in use here", model)
	}
	fill := p1.fill
	p2, err := Load(ctx, Source{Files: files.Files, ImportPaths: files.ImportPaths, Message: string(p1.Message.FullName()), Fill: &fill})
	if err != nil {
		return evolution.Pair{}, fmt.Errorf("version 2: %w", err)
	}
	return Evolution(p1, p2)
}

func join(path string, name protoreflect.Name) string { return path + "." + string(name) }

// diffMessages are the changes from a to b, fields matched by number, at
// paths pa and pb; messages of both are compared once.
func diffMessages(a, b protoreflect.MessageDescriptor, pa, pb string, seen map[[2]protoreflect.FullName]bool) []evolution.Change {
	if key := [2]protoreflect.FullName{a.FullName(), b.FullName()}; seen[key] {
		return nil
	} else {
		seen[key] = true
	}
	var out []evolution.Change
	fa, fb := a.Fields(), b.Fields()
	for i := range fa.Len() {
		f := fa.Get(i)
		g := fb.ByNumber(f.Number())
		if g == nil {
			out = append(out, gone(f, fb, pa, pb))
			continue
		}
		out = append(out, diffField(f, g, join(pa, f.Name()), join(pb, g.Name()), seen)...)
	}
	for i := range fb.Len() {
		if g := fb.Get(i); fa.ByNumber(g.Number()) == nil && fa.ByName(g.Name()) == nil {
			out = append(out, added(g, join(pb, g.Name())))
		}
	}
	return out
}

// gone is the change of a field v2 has no field of its number for: moved
// to another number, or removed.
func gone(f protoreflect.FieldDescriptor, fb protoreflect.FieldDescriptors, pa, pb string) evolution.Change {
	if g := fb.ByName(f.Name()); g != nil {
		return evolution.Change{Name: FieldRenumbered + " " + string(f.FullName()), Field: [2]string{join(pa, f.Name()), join(pb, g.Name())},
			Doc: fmt.Sprintf("%s numbered %d in v1, %d in v2", f.FullName(), f.Number(), g.Number())}
	}
	return evolution.Change{Name: FieldRemoved + " " + string(f.FullName()), Field: [2]string{join(pa, f.Name()), ""},
		Doc: fmt.Sprintf("%s (%d) removed in v2", f.FullName(), f.Number())}
}

// added is the change of a field only v2 has; a v2 sender sets it to a
// value of its kind (a list or map is left empty, and says so).
func added(g protoreflect.FieldDescriptor, path string) evolution.Change {
	ch := evolution.Change{Name: FieldAdded + " " + string(g.FullName()), Field: [2]string{"", path},
		Doc: fmt.Sprintf("%s (%d) added in v2", g.FullName(), g.Number())}
	if g.IsList() || g.IsMap() {
		ch.Doc += "; a repeated or map field, sent empty"
		return ch
	}
	ch.Sent = map[evolution.Version]protoreflect.Value{evolution.V2: sample(g)}
	return ch
}

// diffField are the changes of a field both versions number alike.
func diffField(f, g protoreflect.FieldDescriptor, pa, pb string, seen map[[2]protoreflect.FullName]bool) []evolution.Change {
	var out []evolution.Change
	if f.Name() != g.Name() {
		out = append(out, evolution.Change{Name: FieldRenamed + " " + string(f.FullName()), Field: [2]string{pa, pb},
			Doc: fmt.Sprintf("%s (%d) renamed %s in v2, same number", f.FullName(), f.Number(), g.Name())})
	}
	if oneofOf(f) != oneofOf(g) {
		out = append(out, evolution.Change{Name: OneofChanged + " " + string(f.FullName()), Field: [2]string{pa, pb},
			Doc: fmt.Sprintf("%s (%d) in oneof %q in v1, %q in v2", f.FullName(), f.Number(), oneofOf(f), oneofOf(g))})
	}
	switch {
	case f.Kind() != g.Kind() || f.IsList() != g.IsList() || f.IsMap() != g.IsMap():
		out = append(out, retyped(f, g, pa, pb))
	case f.Enum() != nil:
		out = append(out, enumAdded(f, g, pa, pb)...)
	case f.Message() != nil && !f.IsMap():
		out = append(out, diffMessages(f.Message(), g.Message(), pa, pb, seen)...)
	}
	return out
}

func oneofOf(f protoreflect.FieldDescriptor) protoreflect.Name {
	if od := f.ContainingOneof(); od != nil && !od.IsSynthetic() {
		return od.Name()
	}
	return ""
}

// wider are the scalar kinds whose values v2's kind holds all of, each
// with a value beyond the narrower one.
var wider = map[[2]protoreflect.Kind]protoreflect.Value{
	{protoreflect.Int32Kind, protoreflect.Int64Kind}:       protoreflect.ValueOfInt64(3_000_000_000),
	{protoreflect.Sint32Kind, protoreflect.Sint64Kind}:     protoreflect.ValueOfInt64(3_000_000_000),
	{protoreflect.Sfixed32Kind, protoreflect.Sfixed64Kind}: protoreflect.ValueOfInt64(3_000_000_000),
	{protoreflect.Uint32Kind, protoreflect.Uint64Kind}:     protoreflect.ValueOfUint64(5_000_000_000),
	{protoreflect.Fixed32Kind, protoreflect.Fixed64Kind}:   protoreflect.ValueOfUint64(5_000_000_000),
	{protoreflect.FloatKind, protoreflect.DoubleKind}:      protoreflect.ValueOfFloat64(1e300),
}

// retyped is a change of type: widened (v2 sends a value beyond v1's
// type), narrowed (v1 sends one beyond v2's), or another.
func retyped(f, g protoreflect.FieldDescriptor, pa, pb string) evolution.Change {
	ch := evolution.Change{Field: [2]string{pa, pb}}
	single := !f.IsList() && !g.IsList() && !f.IsMap() && !g.IsMap()
	if v, ok := wider[[2]protoreflect.Kind{f.Kind(), g.Kind()}]; ok && single {
		ch.Name, ch.Sent = ScalarWidened, map[evolution.Version]protoreflect.Value{evolution.V2: v}
		ch.Doc = fmt.Sprintf("%s (%d) %s in v1, %s in v2; v2 sends %v, beyond %s", f.FullName(), f.Number(), f.Kind(), g.Kind(), v.Interface(), f.Kind())
	} else if v, ok := wider[[2]protoreflect.Kind{g.Kind(), f.Kind()}]; ok && single {
		ch.Name, ch.Sent = ScalarNarrowed, map[evolution.Version]protoreflect.Value{evolution.V1: v}
		ch.Doc = fmt.Sprintf("%s (%d) %s in v1, %s in v2; v1 sends %v, beyond %s", f.FullName(), f.Number(), f.Kind(), g.Kind(), v.Interface(), g.Kind())
	} else {
		ch.Name = FieldRetyped
		ch.Doc = fmt.Sprintf("%s (%d) %s in v1, %s in v2", f.FullName(), f.Number(), describe(f), describe(g))
	}
	ch.Name += " " + string(f.FullName())
	return ch
}

func describe(f protoreflect.FieldDescriptor) string {
	switch {
	case f.IsMap():
		return "a map"
	case f.IsList():
		return "repeated " + f.Kind().String()
	}
	return f.Kind().String()
}

// enumAdded is a change per value v2's enum adds: a v2 sender sends it.
func enumAdded(f, g protoreflect.FieldDescriptor, pa, pb string) []evolution.Change {
	var out []evolution.Change
	values := g.Enum().Values()
	for i := range values.Len() {
		v := values.Get(i)
		if f.Enum().Values().ByNumber(v.Number()) != nil {
			continue
		}
		ch := evolution.Change{Name: EnumValueAdded + " " + string(v.FullName()), Field: [2]string{pa, pb},
			Doc: fmt.Sprintf("%s %s (%d) added in v2; v2 sends it in %s", g.Enum().FullName(), v.Name(), v.Number(), f.FullName())}
		if !f.IsList() {
			ch.Sent = map[evolution.Version]protoreflect.Value{evolution.V2: protoreflect.ValueOfEnum(v.Number())}
		}
		out = append(out, ch)
	}
	return out
}

// sample is a value of g's kind a v2 sender sets an added field to: a
// message filled as the default fill fills one, else a fixed value.
func sample(g protoreflect.FieldDescriptor) protoreflect.Value {
	if g.Message() != nil {
		f := &filler{f: DefaultFill(), r: rand.New(rand.NewPCG(1, 1))}
		return protoreflect.ValueOfMessage(f.message(g.Message(), 1))
	}
	f := &filler{f: DefaultFill(), r: rand.New(rand.NewPCG(2, 2))}
	return f.scalar(g, Hint{})
}
