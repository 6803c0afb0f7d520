package codec

import (
	"encoding/json"
	"fmt"

	"github.com/hamba/avro/v2"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A user's message travels in Avro under a schema derived from its
// descriptor (DynamicAvroSchema), written and read as hamba's generic
// values (records as maps, unions as a map from the branch's type name to
// its value).

// DynamicAvroSchema is the Avro schema (JSON) of a user's message: a
// record per message, named by its full name; an array per repeated
// field; a map per map with string keys, and an array of key-value
// records per map with other keys; a union of null and a record per
// singular message field; a union of null and the type per optional
// scalar; a field per oneof, named after it, whose union is null or a
// record per branch (holding the branch's value, so two branches of one
// type stay apart); an Avro enum per enum (its symbols the value names);
// int for 32-bit signed integers, long for the rest (a uint64 as the long
// of the same 64 bits).
func DynamicAvroSchema(md protoreflect.MessageDescriptor) string {
	b, err := json.Marshal(dynRecord(md, map[protoreflect.FullName]bool{}))
	if err != nil {
		panic(err) // maps of strings and slices always marshal
	}
	return string(b)
}

func dynRecord(md protoreflect.MessageDescriptor, defined map[protoreflect.FullName]bool) any {
	if defined[md.FullName()] {
		return string(md.FullName())
	}
	defined[md.FullName()] = true
	var fields []map[string]any
	fds := md.Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		od := fd.ContainingOneof()
		switch {
		case od != nil && !od.IsSynthetic():
			if od.Fields().Get(0) == fd { // the oneof's field, once
				fields = append(fields, map[string]any{"name": string(od.Name()), "type": dynOneof(od, defined), "default": nil})
			}
		case fd.IsList():
			fields = append(fields, map[string]any{"name": string(fd.Name()), "type": map[string]any{"type": "array", "items": dynType(fd, defined)}, "default": []any{}})
		case fd.IsMap() && fd.MapKey().Kind() == protoreflect.StringKind:
			fields = append(fields, map[string]any{"name": string(fd.Name()), "type": map[string]any{"type": "map", "values": dynType(fd.MapValue(), defined)}, "default": map[string]any{}})
		case fd.IsMap():
			fields = append(fields, map[string]any{"name": string(fd.Name()), "type": map[string]any{"type": "array", "items": dynRecord(fd.Message(), defined)}, "default": []any{}})
		case fd.HasPresence():
			fields = append(fields, map[string]any{"name": string(fd.Name()), "type": []any{"null", dynType(fd, defined)}, "default": nil})
		default:
			fields = append(fields, map[string]any{"name": string(fd.Name()), "type": dynType(fd, defined), "default": dynZero(fd)})
		}
	}
	return map[string]any{"type": "record", "name": string(md.FullName()), "fields": fields}
}

// dynOneof is the union of null and a record per branch of od, named
// FULL.ONEOF.BRANCH.
func dynOneof(od protoreflect.OneofDescriptor, defined map[protoreflect.FullName]bool) []any {
	union := []any{"null"}
	for i := range od.Fields().Len() {
		fd := od.Fields().Get(i)
		union = append(union, map[string]any{
			"type": "record", "name": oneofBranchName(od, fd),
			"fields": []any{map[string]any{"name": "value", "type": dynType(fd, defined)}},
		})
	}
	return union
}

func oneofBranchName(od protoreflect.OneofDescriptor, fd protoreflect.FieldDescriptor) string {
	return string(od.FullName()) + "." + string(fd.Name())
}

func dynType(fd protoreflect.FieldDescriptor, defined map[protoreflect.FullName]bool) any {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return dynRecord(fd.Message(), defined)
	case protoreflect.EnumKind:
		ed := fd.Enum()
		if defined[ed.FullName()] {
			return string(ed.FullName())
		}
		defined[ed.FullName()] = true
		var symbols []string
		for i := range ed.Values().Len() {
			symbols = append(symbols, string(ed.Values().Get(i).Name()))
		}
		return map[string]any{"type": "enum", "name": string(ed.FullName()), "symbols": symbols, "default": symbols[0]}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return "int"
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return "long"
	}
	return avroScalarOrRecord(fd, nil)
}

func dynZero(fd protoreflect.FieldDescriptor) any {
	if fd.Kind() == protoreflect.EnumKind {
		return string(fd.Enum().Values().Get(0).Name())
	}
	return avroZero(fd.Kind())
}

// avroNull is an absent union's value: a union map with no branch, which
// hamba writes as null. An untyped nil would go through hamba's encoder
// for a *null struct instead, which builds the encoder of the record
// branch for that struct and panics (nil type) when the record holds a
// union of more than null and one type with a null default, as a oneof's
// field does.
var avroNull = map[string]any(nil)

// avroTree is m as hamba's generic values for DynamicAvroSchema: every
// field present.
func avroTree(m protoreflect.Message) (map[string]any, error) {
	md := m.Descriptor()
	t := make(map[string]any, md.Fields().Len())
	fds := md.Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		v, err := avroField(m, fd)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fd.FullName(), err)
		}
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			if m.WhichOneof(od) == fd {
				t[string(od.Name())] = map[string]any{oneofBranchName(od, fd): map[string]any{"value": v}}
			} else if _, set := t[string(od.Name())]; !set {
				t[string(od.Name())] = avroNull
			}
			continue
		}
		t[string(fd.Name())] = v
	}
	return t, nil
}

func avroField(m protoreflect.Message, fd protoreflect.FieldDescriptor) (any, error) {
	v := m.Get(fd)
	switch {
	case fd.IsList():
		out := make([]any, v.List().Len())
		for i := range out {
			item, err := avroScalar(fd, v.List().Get(i))
			if err != nil {
				return nil, err
			}
			out[i] = item
		}
		return out, nil
	case fd.IsMap():
		return avroMap(fd, v.Map())
	case fd.HasPresence() && (fd.ContainingOneof() == nil || fd.ContainingOneof().IsSynthetic()):
		if !m.Has(fd) {
			return avroNull, nil
		}
		item, err := avroScalar(fd, v)
		return map[string]any{avroTypeName(fd): item}, err
	}
	return avroScalar(fd, v)
}

func avroMap(fd protoreflect.FieldDescriptor, mp protoreflect.Map) (any, error) {
	var err error
	if fd.MapKey().Kind() == protoreflect.StringKind {
		out := make(map[string]any, mp.Len())
		mp.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
			out[k.String()], err = avroScalar(fd.MapValue(), v)
			return err == nil
		})
		return out, err
	}
	out := make([]any, 0, mp.Len())
	mp.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
		var key, value any
		if key, err = avroScalar(fd.MapKey(), k.Value()); err == nil {
			value, err = avroScalar(fd.MapValue(), v)
		}
		if fd.MapValue().Message() != nil {
			value = map[string]any{avroTypeName(fd.MapValue()): value}
		}
		out = append(out, map[string]any{"key": key, "value": value})
		return err == nil
	})
	return out, err
}

// avroTypeName names fd's type as a union names its branches.
func avroTypeName(fd protoreflect.FieldDescriptor) string {
	switch t := dynType(fd, map[protoreflect.FullName]bool{}).(type) {
	case string:
		return t
	case map[string]any:
		return t["name"].(string)
	}
	panic("avro: no type name for " + string(fd.FullName()))
}

func avroScalar(fd protoreflect.FieldDescriptor, v protoreflect.Value) (any, error) {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return avroTree(v.Message())
	case protoreflect.EnumKind:
		ev := fd.Enum().Values().ByNumber(v.Enum())
		if ev == nil {
			return nil, fmt.Errorf("enum number %d has no name, and an Avro enum carries names", v.Enum())
		}
		return string(ev.Name()), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return int64(v.Uint()), nil
	}
	return v.Interface(), nil
}

// parseDynamicAvro parses md's derived schema.
func parseDynamicAvro(md protoreflect.MessageDescriptor) (avro.Schema, error) {
	s, err := avro.ParseWithCache(DynamicAvroSchema(md), "", &avro.SchemaCache{})
	if err != nil {
		return nil, fmt.Errorf("avro: the schema derived from %s: %w", md.FullName(), err)
	}
	return s, nil
}

// fromAvroTree sets m's fields from hamba's generic values for
// DynamicAvroSchema.
func fromAvroTree(t any, m protoreflect.Message) error {
	rec, ok := t.(map[string]any)
	if !ok {
		return fmt.Errorf("avro: %s: want a record, got %T", m.Descriptor().FullName(), t)
	}
	fds := m.Descriptor().Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		var err error
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			if od.Fields().Get(0) == fd {
				err = fromAvroOneof(rec[string(od.Name())], od, m)
			}
		} else if v, ok := rec[string(fd.Name())]; ok && v != nil {
			err = fromAvroField(v, fd, m)
		}
		if err != nil {
			return fmt.Errorf("avro: %s: %w", fd.FullName(), err)
		}
	}
	return nil
}

func fromAvroOneof(v any, od protoreflect.OneofDescriptor, m protoreflect.Message) error {
	for name, branch := range unionOf(v) {
		fd := od.Fields().ByName(protoreflect.Name(name[len(od.FullName())+1:]))
		rec, ok := branch.(map[string]any)
		if fd == nil || !ok {
			return fmt.Errorf("no branch %s of oneof %s", name, od.FullName())
		}
		pv, err := fromAvroValue(fd, rec["value"], func() protoreflect.Value { return m.NewField(fd) })
		if err == nil {
			m.Set(fd, pv)
		}
		return err
	}
	return nil
}

// unionOf is a union's value as hamba decodes it: nil, or a map from the
// branch's type name to its value.
func unionOf(v any) map[string]any {
	u, _ := v.(map[string]any)
	return u
}

func fromAvroField(v any, fd protoreflect.FieldDescriptor, m protoreflect.Message) error {
	switch {
	case fd.IsList():
		items, _ := v.([]any)
		l := m.Mutable(fd).List()
		for _, item := range items {
			pv, err := fromAvroValue(fd, item, l.NewElement)
			if err != nil {
				return err
			}
			l.Append(pv)
		}
		return nil
	case fd.IsMap():
		return fromAvroMap(v, fd, m.Mutable(fd).Map())
	case fd.HasPresence():
		for _, item := range unionOf(v) {
			v = item
		}
	}
	pv, err := fromAvroValue(fd, v, func() protoreflect.Value { return m.NewField(fd) })
	if err == nil {
		m.Set(fd, pv)
	}
	return err
}

func fromAvroMap(v any, fd protoreflect.FieldDescriptor, mp protoreflect.Map) error {
	entries := map[any]any{}
	switch v := v.(type) {
	case map[string]any:
		for k, item := range v {
			entries[k] = item
		}
	case []any:
		for _, e := range v {
			rec, _ := e.(map[string]any)
			value := rec["value"]
			if fd.MapValue().Message() != nil {
				for _, item := range unionOf(value) {
					value = item
				}
			}
			entries[rec["key"]] = value
		}
	}
	for k, item := range entries {
		key, err := cborTree.fromScalar(fd.MapKey(), k, nil)
		if err != nil {
			return err
		}
		pv, err := fromAvroValue(fd.MapValue(), item, mp.NewValue)
		if err != nil {
			return err
		}
		mp.Set(key.MapKey(), pv)
	}
	return nil
}

func fromAvroValue(fd protoreflect.FieldDescriptor, v any, newMessage func() protoreflect.Value) (protoreflect.Value, error) {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		mv := newMessage()
		return mv, fromAvroTree(v, mv.Message())
	case protoreflect.EnumKind:
		name, _ := v.(string)
		ev := fd.Enum().Values().ByName(protoreflect.Name(name))
		if ev == nil {
			return protoreflect.Value{}, fmt.Errorf("no value %q in enum %s", name, fd.Enum().FullName())
		}
		return protoreflect.ValueOfEnum(ev.Number()), nil
	}
	return cborTree.fromScalar(fd, v, nil)
}

// recursive says whether a message of md can contain a message of a type
// it is already inside.
func recursive(md protoreflect.MessageDescriptor) bool {
	return containsItself(md, map[protoreflect.FullName]bool{})
}

func containsItself(md protoreflect.MessageDescriptor, inside map[protoreflect.FullName]bool) bool {
	if inside[md.FullName()] {
		return true
	}
	inside[md.FullName()] = true
	defer delete(inside, md.FullName())
	fds := md.Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		sub := fd.Message()
		if fd.IsMap() {
			sub = fd.MapValue().Message()
		}
		if sub != nil && containsItself(sub, inside) {
			return true
		}
	}
	return false
}
