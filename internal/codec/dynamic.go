package codec

import (
	"fmt"
	"math"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// A user's message (internal/userschema) is a dynamicpb.Message: it has no
// generated Go struct for encoding/json, MessagePack, CBOR or Avro to
// reflect on. Those codecs carry it as its field tree instead: a message
// is a map from its fields' proto names to their values (set fields only,
// as the generated structs omit zero values), a repeated field a list, a
// map field a map, an enum its number, and a scalar its Go value. The same
// tree serves every format, so they differ in encoding only, as they do
// for the built-in models.

func isDynamic(m proto.Message) (*dynamicpb.Message, bool) {
	d, ok := m.(*dynamicpb.Message)
	return d, ok
}

// tree is m's field tree.
func tree(m protoreflect.Message) map[string]any {
	t := make(map[string]any, m.Descriptor().Fields().Len())
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		t[string(fd.Name())] = treeValue(fd, v)
		return true
	})
	return t
}

func treeValue(fd protoreflect.FieldDescriptor, v protoreflect.Value) any {
	switch {
	case fd.IsList():
		l := v.List()
		out := make([]any, l.Len())
		for i := range out {
			out[i] = treeScalar(fd, l.Get(i))
		}
		return out
	case fd.IsMap():
		out := make(map[any]any, v.Map().Len())
		v.Map().Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
			out[k.Interface()] = treeScalar(fd.MapValue(), v)
			return true
		})
		return out
	}
	return treeScalar(fd, v)
}

func treeScalar(fd protoreflect.FieldDescriptor, v protoreflect.Value) any {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return tree(v.Message())
	case protoreflect.EnumKind:
		return int32(v.Enum())
	}
	return v.Interface()
}

// treeDecoder reads a field tree into a message as one format's library
// reads the built-in models' structs: an integer out of its field's range
// is cut to the field's width (truncate: vmihailenco/msgpack converts
// so) or refused (fxamacker/cbor refuses it).
type treeDecoder struct{ truncate bool }

var (
	msgpackTree = treeDecoder{truncate: true}
	cborTree    = treeDecoder{}
)

// fromTree sets m's fields from t, as a format's generic decoder left it:
// numbers of any width, maps keyed by any or by string. A name m has no
// field of is skipped, as the struct decoders of the built-in models skip
// a key their struct lacks.
func (d treeDecoder) fromTree(t any, m protoreflect.Message) error {
	fields, err := treeMap(t)
	if err != nil {
		return fmt.Errorf("%s: %w", m.Descriptor().FullName(), err)
	}
	for k, v := range fields {
		name, ok := k.(string)
		if !ok {
			return fmt.Errorf("%s: a field name is %T, not a string", m.Descriptor().FullName(), k)
		}
		fd := m.Descriptor().Fields().ByName(protoreflect.Name(name))
		if fd == nil {
			continue
		}
		if err := d.setField(m, fd, v); err != nil {
			return fmt.Errorf("%s: %w", fd.FullName(), err)
		}
	}
	return nil
}

// treeMap is a decoded map as map[any]any, whichever map type decoded it.
func treeMap(t any) (map[any]any, error) {
	switch t := t.(type) {
	case map[any]any:
		return t, nil
	case map[string]any:
		out := make(map[any]any, len(t))
		for k, v := range t {
			out[k] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("want a map of fields, got %T", t)
}

func (d treeDecoder) setField(m protoreflect.Message, fd protoreflect.FieldDescriptor, v any) error {
	switch {
	case fd.IsList():
		items, ok := v.([]any)
		if !ok {
			return fmt.Errorf("want a list, got %T", v)
		}
		l := m.Mutable(fd).List()
		for _, item := range items {
			pv, err := d.fromScalar(fd, item, l.NewElement)
			if err != nil {
				return err
			}
			l.Append(pv)
		}
		return nil
	case fd.IsMap():
		entries, err := treeMap(v)
		if err != nil {
			return err
		}
		mp := m.Mutable(fd).Map()
		for k, item := range entries {
			key, err := d.fromScalar(fd.MapKey(), k, nil)
			if err != nil {
				return err
			}
			pv, err := d.fromScalar(fd.MapValue(), item, mp.NewValue)
			if err != nil {
				return err
			}
			mp.Set(key.MapKey(), pv)
		}
		return nil
	}
	pv, err := d.fromScalar(fd, v, func() protoreflect.Value { return m.NewField(fd) })
	if err == nil {
		m.Set(fd, pv)
	}
	return err
}

// fromScalar is one value of fd's kind; newMessage makes an empty message
// for a message value.
func (d treeDecoder) fromScalar(fd protoreflect.FieldDescriptor, v any, newMessage func() protoreflect.Value) (protoreflect.Value, error) {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		mv := newMessage()
		return mv, d.fromTree(v, mv.Message())
	case protoreflect.BoolKind:
		b, ok := v.(bool)
		return protoreflect.ValueOfBool(b), want(ok, "a bool", v)
	case protoreflect.StringKind:
		s, ok := v.(string)
		return protoreflect.ValueOfString(s), want(ok, "a string", v)
	case protoreflect.BytesKind:
		switch b := v.(type) {
		case []byte:
			return protoreflect.ValueOfBytes(b), nil
		case string: // a format without a bytes type
			return protoreflect.ValueOfBytes([]byte(b)), nil
		}
		return protoreflect.Value{}, want(false, "bytes", v)
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		f, ok := toFloat(v)
		if fd.Kind() == protoreflect.FloatKind {
			return protoreflect.ValueOfFloat32(float32(f)), want(ok, "a number", v)
		}
		return protoreflect.ValueOfFloat64(f), want(ok, "a number", v)
	}
	return d.fromInteger(fd, v)
}

func (d treeDecoder) fromInteger(fd protoreflect.FieldDescriptor, v any) (protoreflect.Value, error) {
	i, u, ok := toInteger(v)
	if !ok {
		return protoreflect.Value{}, want(false, "an integer", v)
	}
	switch fd.Kind() {
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(protoreflect.EnumNumber(i)), d.inRange(i, math.MinInt32, math.MaxInt32)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(i)), d.inRange(i, math.MinInt32, math.MaxInt32)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(i), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(u)), d.inRange(int64(u), 0, math.MaxUint32)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(u), nil
	}
	return protoreflect.Value{}, fmt.Errorf("kind %v has no value in a field tree", fd.Kind())
}

// toInteger reads any integer a decoder makes, as signed and as unsigned
// (the same 64 bits: Avro's long carries a uint64 so).
func toInteger(v any) (int64, uint64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), uint64(n), true
	case int8:
		return int64(n), uint64(n), true
	case int16:
		return int64(n), uint64(n), true
	case int32:
		return int64(n), uint64(n), true
	case int64:
		return n, uint64(n), true
	case uint8:
		return int64(n), uint64(n), true
	case uint16:
		return int64(n), uint64(n), true
	case uint32:
		return int64(n), uint64(n), true
	case uint64:
		return int64(n), n, true
	}
	return 0, 0, false
}

func toFloat(v any) (float64, bool) {
	switch f := v.(type) {
	case float32:
		return float64(f), true
	case float64:
		return f, true
	}
	i, _, ok := toInteger(v)
	return float64(i), ok
}

func want(ok bool, what string, v any) error {
	if ok {
		return nil
	}
	return fmt.Errorf("want %s, got %T", what, v)
}

func (d treeDecoder) inRange(i, lo, hi int64) error {
	if !d.truncate && (i < lo || i > hi) {
		return fmt.Errorf("%d is out of the field's range", i)
	}
	return nil
}
