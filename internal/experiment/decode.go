package experiment

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/hopbench/hopbench/internal/specyaml"
	"go.yaml.in/yaml/v3"
)

// SpecError is a problem with a spec, at a field path such as
// loads[1].rate.arrivals.
type SpecError = specyaml.Error

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
	if err := specyaml.Decode(root, reflect.ValueOf(s).Elem(), ""); err != nil {
		return nil, err
	}
	s.Defaults()
	for i, n := range partNodes {
		p := &Spec{scale: scale, part: names[i]}
		if err := specyaml.Decode(n, reflect.ValueOf(p).Elem(), ""); err != nil {
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
