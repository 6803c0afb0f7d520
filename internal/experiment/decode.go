package experiment

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// SpecError is a problem with a spec, at a field path such as
// loads[1].rate.arrivals.
type SpecError struct {
	Path string
	Line int
	Msg  string
}

func (e *SpecError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("spec: %s (line %d): %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("spec: %s: %s", e.Path, e.Msg)
}

// Parse reads a spec from YAML as written: see ParseScale.
func Parse(data []byte) (*Spec, error) { return ParseScale(data, "") }

// ParseScale reads a spec from YAML at the named scale ("" for as
// written), refusing unknown fields and values of the wrong type with the
// field path at fault, then fills in defaults and validates it. A scale's
// fields are written over the spec's before it is read; a spec with parts
// becomes one spec per part, each the top level with the part's fields
// written over it, run one after another.
func ParseScale(data []byte, scale string) (*Spec, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("spec: not valid YAML: %w", err)
	}
	if len(doc.Content) == 0 {
		return nil, errors.New("spec: empty; an experiment needs at least stacks, payloads and loads")
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, &SpecError{Path: "(top level)", Line: root.Line, Msg: "want a mapping of stacks, payloads, loads, ..."}
	}
	if err := applyScale(root, scale); err != nil {
		return nil, err
	}
	partNodes, names, err := splitParts(root)
	if err != nil {
		return nil, err
	}
	s := &Spec{scale: scale}
	if err := decode(root, reflect.ValueOf(s).Elem(), ""); err != nil {
		return nil, err
	}
	s.Defaults()
	for i, n := range partNodes {
		p := &Spec{scale: scale, part: names[i]}
		if err := decode(n, reflect.ValueOf(p).Elem(), ""); err != nil {
			return nil, fmt.Errorf("parts[%d] (%s): %w", i, names[i], err)
		}
		p.Defaults()
		p.Study, p.Codecs, p.Pin, p.Hosts = s.Study, s.Codecs, s.Pin, s.Hosts
		s.parts = append(s.parts, p)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// Scale is the scale the spec was read at; "" for as written.
func (s *Spec) Scale() string { return s.scale }

// ReadFile parses the spec at path; its name defaults to the file's.
func ReadFile(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseNamed(data, path, "")
}

// ParseNamed parses a spec read from path (a file or a preset's name) at
// a scale, naming the experiment after it when the spec gives no name.
func ParseNamed(data []byte, path, scale string) (*Spec, error) {
	s, err := ParseScale(data, scale)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if s.Name == "" {
		s.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		for _, p := range s.parts {
			p.Name = s.Name
		}
	}
	return s, nil
}

var unmarshaler = reflect.TypeFor[yaml.Unmarshaler]()

// decode fills v from n strictly. yaml's own decoder names neither the
// field path of a type error nor the fields it would have accepted; this
// walk does both.
func decode(n *yaml.Node, v reflect.Value, path string) error {
	fail := func(format string, args ...any) error {
		return &SpecError{Path: orRoot(path), Line: n.Line, Msg: fmt.Sprintf(format, args...)}
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
		if err := v.Addr().Interface().(yaml.Unmarshaler).UnmarshalYAML(n); err != nil {
			return fail("%v", err)
		}
		return nil
	}
	switch v.Kind() {
	case reflect.Struct:
		return decodeStruct(n, v, path, fail)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return fail("want a list, e.g. [%s]", example(v.Type().Elem()))
		}
		v.Set(reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content)))
		for i, item := range n.Content {
			if err := decode(item, v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
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
			return &SpecError{Path: at, Line: key.Line, Msg: fmt.Sprintf("unknown field (known here: %s)", strings.Join(fieldNames(v.Type()), ", "))}
		case seen[key.Value]:
			return &SpecError{Path: at, Line: key.Line, Msg: "given twice"}
		}
		seen[key.Value] = true
		if err := decode(val, v.Field(idx), at); err != nil {
			return err
		}
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
