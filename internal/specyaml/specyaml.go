// Package specyaml reads YAML strictly into Go values, naming the field
// path and line of whatever is wrong, and holds the value types specs are
// written in (durations, sizes, switches measured both ways).
package specyaml

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Error is a problem with a spec, at a field path such as
// loads[1].rate.arrivals, and the line it is on (0: none).
type Error struct {
	Path string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("spec: %s (line %d): %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("spec: %s: %s", e.Path, e.Msg)
}

var unmarshaler = reflect.TypeFor[yaml.Unmarshaler]()

// Decode fills v from n strictly, naming what is wrong by its field path
// under path ("" for the top level). yaml's own decoder names neither the
// field path of a type error nor the fields it would have accepted; this
// walk does both.
func Decode(n *yaml.Node, v reflect.Value, path string) error {
	fail := func(format string, args ...any) error {
		return &Error{Path: orRoot(path), Line: n.Line, Msg: fmt.Sprintf(format, args...)}
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if v.Kind() == reflect.Pointer {
		if n.Tag == "!!null" {
			return nil
		}
		v.Set(reflect.New(v.Type().Elem()))
		v = v.Elem()
	}
	if reflect.PointerTo(v.Type()).Implements(unmarshaler) {
		err := v.Addr().Interface().(yaml.Unmarshaler).UnmarshalYAML(n)
		var within *Error
		if errors.As(err, &within) {
			// A value that names where in itself it is wrong gives a
			// path that continues its own: .p99, [1].stacks.
			return &Error{Path: orRoot(path + within.Path), Line: within.Line, Msg: within.Msg}
		}
		if err != nil {
			return fail("%v", err)
		}
		return nil
	}
	switch v.Kind() {
	case reflect.Struct:
		return decodeStruct(n, v, path, fail)
	case reflect.Map:
		return decodeMap(n, v, path, fail)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return fail("want a list, e.g. [%s]", example(v.Type().Elem()))
		}
		v.Set(reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content)))
		for i, item := range n.Content {
			if err := Decode(item, v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	}
	if n.Kind != yaml.ScalarNode {
		return fail("want %s", example(v.Type()))
	}
	if err := n.Decode(v.Addr().Interface()); err != nil {
		return fail("%q is not %s", n.Value, example(v.Type()))
	}
	return nil
}

func decodeStruct(n *yaml.Node, v reflect.Value, path string, fail func(string, ...any) error) error {
	if n.Kind != yaml.MappingNode {
		return fail("want a mapping of %s", strings.Join(fieldNames(v.Type()), ", "))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		at := join(path, key.Value)
		idx, ok := fieldIndex(v.Type(), key.Value)
		switch {
		case !ok:
			return &Error{Path: at, Line: key.Line, Msg: fmt.Sprintf("unknown field (known here: %s)", strings.Join(fieldNames(v.Type()), ", "))}
		case seen[key.Value]:
			return &Error{Path: at, Line: key.Line, Msg: "given twice"}
		}
		seen[key.Value] = true
		if err := Decode(val, v.Field(idx), at); err != nil {
			return err
		}
	}
	return nil
}

// decodeMap fills a map with string keys from a mapping, each value
// decoded strictly at its key's path.
func decodeMap(n *yaml.Node, v reflect.Value, path string, fail func(string, ...any) error) error {
	if n.Kind != yaml.MappingNode || v.Type().Key().Kind() != reflect.String {
		return fail("want a mapping of names to %s", example(v.Type().Elem()))
	}
	v.Set(reflect.MakeMapWithSize(v.Type(), len(n.Content)/2))
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		if v.MapIndex(reflect.ValueOf(key.Value).Convert(v.Type().Key())).IsValid() {
			return &Error{Path: join(path, key.Value), Line: key.Line, Msg: "given twice"}
		}
		elem := reflect.New(v.Type().Elem()).Elem()
		if err := Decode(val, elem, join(path, key.Value)); err != nil {
			return err
		}
		v.SetMapIndex(reflect.ValueOf(key.Value).Convert(v.Type().Key()), elem)
	}
	return nil
}

func fieldIndex(t reflect.Type, name string) (int, bool) {
	for i := range t.NumField() {
		if tagName(t.Field(i)) == name {
			return i, true
		}
	}
	return 0, false
}

func fieldNames(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		if n := tagName(t.Field(i)); n != "" && n != "-" {
			names = append(names, n)
		}
	}
	return names
}

func tagName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	return name
}

func example(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Uint64:
		return "a whole number"
	case reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Struct, reflect.Pointer:
		return "a mapping"
	}
	return t.String()
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func orRoot(path string) string {
	if path == "" {
		return "(top level)"
	}
	return path
}

// Lookup is the value of key in the mapping m; nil for none.
func Lookup(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// Take removes key from the mapping m and returns its value.
func Take(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			v := m.Content[i+1]
			m.Content = slices.Delete(m.Content, i, i+2)
			return v
		}
	}
	return nil
}

// Set writes key: val into the mapping m, replacing a value it has.
func Set(m, key, val *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key.Value {
			m.Content[i+1] = val
			return
		}
	}
	m.Content = append(m.Content, key, val)
}

// Clone copies a mapping's list of keys and values (the values are shared:
// Set replaces them rather than changing them).
func Clone(m *yaml.Node) *yaml.Node {
	c := *m
	c.Content = slices.Clone(m.Content)
	return &c
}

// OneOrList reads a node that is one item or a list of them, each by
// parse; an empty list, or an item given twice, is refused.
func OneOrList[T comparable](n *yaml.Node, want string, parse func(*yaml.Node) (T, error)) ([]T, error) {
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	if len(items) == 0 {
		return nil, errors.New(want)
	}
	var out []T
	for _, it := range items {
		v, err := parse(it)
		if err != nil {
			return nil, err
		}
		if slices.Contains(out, v) {
			return nil, fmt.Errorf("%q is given twice", cmp.Or(it.Value, fmt.Sprint(v)))
		}
		out = append(out, v)
	}
	return out, nil
}
