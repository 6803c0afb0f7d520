package userschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"

	"github.com/invopop/jsonschema"
	"go.yaml.in/yaml/v3"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/hopbench/hopbench/internal/specyaml"
)

// Range is an inclusive range of lengths, sizes or numbers; in JSON and a
// spec, a number (that value alone) or [min, max].
type Range struct{ Min, Max float64 }

// JSONSchema is a range's schema in the spec's: a number or [min, max].
func (Range) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{
		{Type: "number"},
		{Type: "array", Items: &jsonschema.Schema{Type: "number"}, MinItems: ptr(uint64(2)), MaxItems: ptr(uint64(2))},
	}, Description: "A number, or [min, max]."}
}

func ptr[T any](v T) *T { return &v }

func (r Range) MarshalYAML() (any, error) { return []float64{r.Min, r.Max}, nil }

func (r Range) MarshalJSON() ([]byte, error) { return json.Marshal([2]float64{r.Min, r.Max}) }

func (r *Range) UnmarshalYAML(n *yaml.Node) error {
	var one float64
	if n.Kind == yaml.ScalarNode && n.Decode(&one) == nil {
		*r = Range{one, one}
		return nil
	}
	var two []float64
	if err := n.Decode(&two); err != nil || len(two) != 2 {
		return errors.New("a range is a number or [min, max]")
	}
	*r = Range{two[0], two[1]}
	return nil
}

// UnmarshalYAML reads a fill over DefaultFill, strictly: what a spec
// leaves out keeps its default.
func (f *Fill) UnmarshalYAML(n *yaml.Node) error {
	type plain Fill
	p := plain(DefaultFill())
	if err := specyaml.Decode(n, reflect.ValueOf(&p).Elem(), "fill"); err != nil {
		return err
	}
	*f = Fill(p)
	return nil
}

func (r *Range) UnmarshalJSON(b []byte) error {
	var one float64
	if err := json.Unmarshal(b, &one); err == nil {
		*r = Range{one, one}
		return nil
	}
	var two []float64
	if err := json.Unmarshal(b, &two); err != nil || len(two) != 2 {
		return fmt.Errorf("a range is a number or [min, max], not %s", b)
	}
	*r = Range{two[0], two[1]}
	return nil
}

// Fill says how generated messages are filled: defaults for every field
// of a kind, and hints for fields by full name (shop.Order.note) or for a
// oneof by its full name (shop.Order.payment).
type Fill struct {
	// Strings and Bytes are the lengths of string and bytes fields.
	Strings Range `json:"strings" yaml:"strings"`
	Bytes   Range `json:"bytes" yaml:"bytes"`
	// Repeated and Maps are the sizes of repeated and map fields.
	Repeated Range `json:"repeated" yaml:"repeated"`
	Maps     Range `json:"maps" yaml:"maps"`
	// Numbers is the range of integer and floating-point fields.
	Numbers Range `json:"numbers" yaml:"numbers"`
	// Optional is the share (0 to 1) of fields with presence (optional
	// scalars, message fields) that are set.
	Optional float64 `json:"optional" yaml:"optional"`
	// Depth bounds how deep messages nest: a message that contains itself
	// is generated to this depth, its fields past it left unset.
	Depth int `json:"depth" yaml:"depth"`
	// Fields are hints by field or oneof full name.
	Fields map[string]Hint `json:"fields,omitempty" yaml:"fields"`
}

// Hint fills one field, or picks one oneof's branch.
type Hint struct {
	// Length of a string or bytes field; Size of a repeated or map field;
	// Range of a number field.
	Length *Range `json:"length,omitempty" yaml:"length"`
	Size   *Range `json:"size,omitempty" yaml:"size"`
	Range  *Range `json:"range,omitempty" yaml:"range"`
	// Branch is the field a oneof sets (its name).
	Branch string `json:"branch,omitempty" yaml:"branch"`
	// Set says whether a field with presence is set.
	Set *bool `json:"set,omitempty" yaml:"set"`
}

// DefaultFill is what a field gets without a hint.
func DefaultFill() Fill {
	return Fill{
		Strings: Range{8, 24}, Bytes: Range{16, 64},
		Repeated: Range{1, 4}, Maps: Range{1, 4},
		Numbers: Range{0, 1000}, Optional: 1, Depth: 4,
	}
}

// Bounds on any fill: a generated message must fit in memory.
const (
	MaxLength = 1 << 24
	MaxSize   = 1 << 16
	MaxDepth  = 32
)

// Check refuses a fill whose ranges are reversed or past the bounds, or
// whose hints name no field or oneof of md.
func (f Fill) Check(md protoreflect.MessageDescriptor) error {
	for _, r := range []struct {
		name  string
		r     Range
		limit float64
	}{{"strings", f.Strings, MaxLength}, {"bytes", f.Bytes, MaxLength}, {"repeated", f.Repeated, MaxSize}, {"maps", f.Maps, MaxSize}} {
		if err := r.r.check(r.name, r.limit); err != nil {
			return err
		}
	}
	if f.Numbers.Min > f.Numbers.Max {
		return fmt.Errorf("fill numbers: min %g is above max %g", f.Numbers.Min, f.Numbers.Max)
	}
	if f.Optional < 0 || f.Optional > 1 {
		return fmt.Errorf("fill optional: %g is not a share between 0 and 1", f.Optional)
	}
	if f.Depth < 1 || f.Depth > MaxDepth {
		return fmt.Errorf("fill depth: %d is not between 1 and %d", f.Depth, MaxDepth)
	}
	return f.checkHints(md)
}

func (r Range) check(name string, limit float64) error {
	switch {
	case r.Min < 0 || r.Min > r.Max:
		return fmt.Errorf("fill %s: %g to %g is not a range of lengths (0 <= min <= max)", name, r.Min, r.Max)
	case r.Max > limit:
		return fmt.Errorf("fill %s: %g is over the %g allowed", name, r.Max, limit)
	}
	return nil
}

// checkHints refuses a hint that names nothing in md's tree, or does not
// fit what it names.
func (f Fill) checkHints(md protoreflect.MessageDescriptor) error {
	fields, oneofs := map[string]protoreflect.FieldDescriptor{}, map[string]protoreflect.OneofDescriptor{}
	walk(md, map[protoreflect.FullName]bool{}, fields, oneofs)
	for name, h := range f.Fields {
		if od, ok := oneofs[name]; ok {
			if h.Branch == "" || od.Fields().ByName(protoreflect.Name(h.Branch)) == nil {
				return fmt.Errorf("fill hint %s: a oneof takes branch: one of %s", name, oneofBranches(od))
			}
			continue
		}
		fd, ok := fields[name]
		if !ok {
			return fmt.Errorf("fill hint %s: no such field or oneof in %s (fields are named in full, e.g. %s.%s)", name, md.FullName(), md.FullName(), firstFieldName(md))
		}
		if err := h.check(fd); err != nil {
			return fmt.Errorf("fill hint %s: %w", name, err)
		}
	}
	return nil
}

func (h Hint) check(fd protoreflect.FieldDescriptor) error {
	switch {
	case h.Branch != "":
		return fmt.Errorf("branch is for a oneof, and this is a field")
	case h.Size != nil && !fd.IsList() && !fd.IsMap():
		return fmt.Errorf("size is for a repeated or map field")
	case h.Length != nil && fd.Kind() != protoreflect.StringKind && fd.Kind() != protoreflect.BytesKind:
		return fmt.Errorf("length is for a string or bytes field")
	case h.Range != nil && !isNumber(fd.Kind()):
		return fmt.Errorf("range is for a number field")
	case h.Set != nil && !fd.HasPresence():
		return fmt.Errorf("set is for a field with presence (optional, or a message)")
	case h.Size != nil:
		return h.Size.check("size", MaxSize)
	case h.Length != nil:
		return h.Length.check("length", MaxLength)
	case h.Range != nil && h.Range.Min > h.Range.Max:
		return fmt.Errorf("range: min %g is above max %g", h.Range.Min, h.Range.Max)
	}
	return nil
}

func walk(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]bool, fields map[string]protoreflect.FieldDescriptor, oneofs map[string]protoreflect.OneofDescriptor) {
	if seen[md.FullName()] {
		return
	}
	seen[md.FullName()] = true
	fds := md.Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		fields[string(fd.FullName())] = fd
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			oneofs[string(od.FullName())] = od
		}
		if sub := fd.Message(); sub != nil {
			walk(sub, seen, fields, oneofs)
		}
	}
}

func oneofBranches(od protoreflect.OneofDescriptor) string {
	var names []string
	for i := range od.Fields().Len() {
		names = append(names, string(od.Fields().Get(i).Name()))
	}
	return strings.Join(names, ", ")
}

func firstFieldName(md protoreflect.MessageDescriptor) string {
	if md.Fields().Len() == 0 {
		return "field"
	}
	return string(md.Fields().Get(0).Name())
}

func isNumber(k protoreflect.Kind) bool {
	switch k {
	case protoreflect.BoolKind, protoreflect.EnumKind, protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind, protoreflect.GroupKind:
		return false
	}
	return true
}

// filler makes messages from one seeded source.
type filler struct {
	f Fill
	r *rand.Rand
}

// message fills a new message of md at depth (1 for the top). Past the
// fill's depth, fields that carry messages are left unset, so a message
// that contains itself ends.
func (g *filler) message(md protoreflect.MessageDescriptor, depth int) *dynamicpb.Message {
	m := dynamicpb.NewMessage(md)
	if g.wellKnown(m) {
		return m
	}
	last := depth >= g.f.Depth
	chosen := map[protoreflect.FullName]protoreflect.FieldDescriptor{}
	fds := md.Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		switch od := fd.ContainingOneof(); {
		case last && carriesMessage(fd):
			continue
		case od != nil && !od.IsSynthetic():
			b, ok := chosen[od.FullName()]
			if !ok {
				b = g.branch(od, last)
				chosen[od.FullName()] = b
			}
			if b != fd {
				continue
			}
		case fd.HasPresence() && !g.present(fd):
			continue
		}
		g.field(m, fd, depth)
	}
	return m
}

func carriesMessage(fd protoreflect.FieldDescriptor) bool {
	if fd.IsMap() {
		return fd.MapValue().Message() != nil
	}
	return fd.Message() != nil
}

// branch is the field a oneof sets: its hint's, else one drawn (among
// those that carry no message, when last and there are some).
func (g *filler) branch(od protoreflect.OneofDescriptor, last bool) protoreflect.FieldDescriptor {
	if h, ok := g.f.Fields[string(od.FullName())]; ok && h.Branch != "" {
		return od.Fields().ByName(protoreflect.Name(h.Branch))
	}
	var branches []protoreflect.FieldDescriptor
	for i := range od.Fields().Len() {
		if fd := od.Fields().Get(i); !last || !carriesMessage(fd) {
			branches = append(branches, fd)
		}
	}
	if len(branches) == 0 {
		return nil
	}
	return branches[g.r.IntN(len(branches))]
}

func (g *filler) present(fd protoreflect.FieldDescriptor) bool {
	if h, ok := g.f.Fields[string(fd.FullName())]; ok && h.Set != nil {
		return *h.Set
	}
	return g.f.Optional >= 1 || g.r.Float64() < g.f.Optional
}

func (g *filler) field(m *dynamicpb.Message, fd protoreflect.FieldDescriptor, depth int) {
	h := g.f.Fields[string(fd.FullName())]
	switch {
	case fd.IsMap():
		mp := m.Mutable(fd).Map()
		for range g.size(h.Size, g.f.Maps) {
			mp.Set(g.scalar(fd.MapKey(), Hint{}).MapKey(), g.value(fd.MapValue(), Hint{}, depth))
		}
	case fd.IsList():
		l := m.Mutable(fd).List()
		for range g.size(h.Size, g.f.Repeated) {
			l.Append(g.value(fd, h, depth))
		}
	default:
		m.Set(fd, g.value(fd, h, depth))
	}
}

func (g *filler) value(fd protoreflect.FieldDescriptor, h Hint, depth int) protoreflect.Value {
	if fd.Message() != nil {
		return protoreflect.ValueOfMessage(g.message(fd.Message(), depth+1))
	}
	return g.scalar(fd, h)
}

func (g *filler) size(hint *Range, def Range) int {
	return g.between(pick(hint, def))
}

func pick(hint *Range, def Range) Range {
	if hint != nil {
		return *hint
	}
	return def
}

func (g *filler) between(r Range) int {
	lo, hi := int(r.Min), int(r.Max)
	if hi <= lo {
		return lo
	}
	return lo + g.r.IntN(hi-lo+1)
}

func (g *filler) number(r Range) float64 { return r.Min + g.r.Float64()*(r.Max-r.Min) }

func (g *filler) scalar(fd protoreflect.FieldDescriptor, h Hint) protoreflect.Value {
	nums := pick(h.Range, g.f.Numbers)
	n := math.Round(g.number(nums))
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(g.r.IntN(2) == 1)
	case protoreflect.EnumKind:
		vals := fd.Enum().Values()
		return protoreflect.ValueOfEnum(vals.Get(g.r.IntN(vals.Len())).Number())
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(g.text(g.between(pick(h.Length, g.f.Strings))))
	case protoreflect.BytesKind:
		b := make([]byte, g.between(pick(h.Length, g.f.Bytes)))
		for i := range b {
			b[i] = byte(g.r.Uint32())
		}
		return protoreflect.ValueOfBytes(b)
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(g.number(nums)))
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(g.number(nums))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(clamp(n, math.MinInt32, math.MaxInt32)))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(int64(clamp(n, math.MinInt64, math.MaxInt64)))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(clamp(n, 0, math.MaxUint32)))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(uint64(clamp(n, 0, math.MaxUint64)))
	}
	panic(fmt.Sprintf("userschema: kind %v of %s", fd.Kind(), fd.FullName())) // Supported refuses the rest
}

func clamp(v, lo, hi float64) float64 { return max(lo, min(hi, v)) }

const lowerAlnum = "abcdefghijklmnopqrstuvwxyz0123456789"

// text is n characters of words of lower-case letters and digits.
func (g *filler) text(n int) string {
	var b strings.Builder
	b.Grow(n)
	for b.Len() < n {
		if b.Len() > 0 && g.r.IntN(7) == 0 {
			b.WriteByte(' ')
			continue
		}
		b.WriteByte(lowerAlnum[g.r.IntN(26)])
	}
	return b.String()
}

// word is n lower-case letters.
func (g *filler) word(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = lowerAlnum[g.r.IntN(26)]
	}
	return string(b)
}

// wellKnown fills the well-known types whose fields have rules beyond their
// types (a Timestamp's range, a Duration's signs, a FieldMask's paths), as
// the proto JSON mapping checks them; it says whether m was one.
func (g *filler) wellKnown(m *dynamicpb.Message) bool {
	md := m.Descriptor()
	set := func(name string, v protoreflect.Value) { m.Set(md.Fields().ByName(protoreflect.Name(name)), v) }
	switch md.FullName() {
	case "google.protobuf.Timestamp":
		set("seconds", protoreflect.ValueOfInt64(1_700_000_000+g.r.Int64N(100_000_000)))
		set("nanos", protoreflect.ValueOfInt32(g.r.Int32N(1_000_000_000)))
	case "google.protobuf.Duration":
		set("seconds", protoreflect.ValueOfInt64(g.r.Int64N(3600)))
		set("nanos", protoreflect.ValueOfInt32(g.r.Int32N(1_000_000_000)))
	case "google.protobuf.FieldMask":
		l := m.Mutable(md.Fields().ByName("paths")).List()
		for range g.between(g.f.Repeated) {
			l.Append(protoreflect.ValueOfString(g.word(max(1, g.between(g.f.Strings)))))
		}
	default:
		return false
	}
	return true
}

// ReadFill reads a fill from a JSON file: see ParseFill.
func ReadFill(path string) (Fill, error) {
	b, err := readFile(path, MaxFileBytes, "a fill")
	if err != nil {
		return DefaultFill(), fmt.Errorf("fill: %w", err)
	}
	return ParseFill(b, path)
}

// ParseFill reads a fill from JSON, from where (for errors): what it
// leaves out keeps DefaultFill's value; an unknown key is refused.
func ParseFill(b []byte, where string) (Fill, error) {
	f := DefaultFill()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return f, fmt.Errorf("fill %s: %w (keys: strings, bytes, repeated, maps, numbers, optional, depth, fields)", where, err)
	}
	return f, nil
}
