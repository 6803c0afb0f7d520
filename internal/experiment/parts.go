package experiment

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hopbench/hopbench/internal/specyaml"
	"go.yaml.in/yaml/v3"
)

// Overrides are spec fields written over others: a scale's over the whole
// spec, a part's over the top level. The schema lists the fields each may
// set (schema.go: overrides); each is checked as a spec once applied.
type Overrides map[string]any

// A part may not set what belongs to the experiment as a whole.
var experimentOnly = []string{"name", "study", "codecs", "jmh", "pin", "order", "scales", "parts", "hosts", "thresholds"}

// applyScale writes the scale called name over the spec's root mapping and
// takes scales out of it. name "" leaves the root as written (the study's
// own scale). A scale's parts is a mapping of part name to overrides,
// written over that part.
func applyScale(root *yaml.Node, name string) error {
	scales := specyaml.Take(root, "scales")
	if name == "" {
		return nil
	}
	if scales == nil || scales.Kind != yaml.MappingNode {
		return &SpecError{Path: "scales", Msg: fmt.Sprintf("--scale %s: this spec has no scales; run it without --scale", name)}
	}
	var known []string
	var scale *yaml.Node
	for i := 0; i+1 < len(scales.Content); i += 2 {
		known = append(known, scales.Content[i].Value)
		if scales.Content[i].Value == name {
			scale = scales.Content[i+1]
		}
	}
	if scale == nil {
		return &SpecError{Path: "scales", Msg: fmt.Sprintf("no scale %q (this spec's scales: %s)", name, strings.Join(known, ", "))}
	}
	at := "scales." + name
	if scale.Kind != yaml.MappingNode {
		return &SpecError{Path: at, Line: scale.Line, Msg: "want a mapping of spec fields to write over the spec's"}
	}
	for i := 0; i+1 < len(scale.Content); i += 2 {
		key, val := scale.Content[i], scale.Content[i+1]
		switch key.Value {
		case "name", "scales":
			return &SpecError{Path: at + "." + key.Value, Line: key.Line, Msg: "a scale cannot change this"}
		case "parts":
			if err := scaleParts(root, val, at+".parts"); err != nil {
				return err
			}
		case "only":
			if err := onlyParts(root, val, at+".only"); err != nil {
				return err
			}
		default:
			specyaml.Set(root, key, val)
		}
	}
	return nil
}

// scaleParts writes a scale's per-part overrides over the named parts.
func scaleParts(root, over *yaml.Node, at string) error {
	parts := specyaml.Lookup(root, "parts")
	if over.Kind != yaml.MappingNode || parts == nil {
		return &SpecError{Path: at, Line: over.Line, Msg: "want a mapping of part name to fields, for a spec with parts"}
	}
	for i := 0; i+1 < len(over.Content); i += 2 {
		name, fields := over.Content[i], over.Content[i+1]
		var part *yaml.Node
		for _, p := range parts.Content {
			if n := specyaml.Lookup(p, "name"); n != nil && n.Value == name.Value {
				part = p
			}
		}
		if part == nil || fields.Kind != yaml.MappingNode {
			return &SpecError{Path: at + "." + name.Value, Line: name.Line, Msg: "no part of that name, or not a mapping of fields"}
		}
		for j := 0; j+1 < len(fields.Content); j += 2 {
			specyaml.Set(part, fields.Content[j], fields.Content[j+1])
		}
	}
	return nil
}

// onlyParts keeps the parts a scale's only: names, in the spec's order,
// and drops the others: a scale that measures what one part needs at
// more than the quick scale need not remake the rest.
func onlyParts(root, only *yaml.Node, at string) error {
	parts := specyaml.Lookup(root, "parts")
	if only.Kind != yaml.SequenceNode || len(only.Content) == 0 || parts == nil {
		return &SpecError{Path: at, Line: only.Line, Msg: "want a list of the spec's part names, e.g. only: [throughput]"}
	}
	keep := map[string]bool{}
	for _, n := range only.Content {
		keep[n.Value] = true
	}
	var kept []*yaml.Node
	for _, p := range parts.Content {
		if n := specyaml.Lookup(p, "name"); n != nil && keep[n.Value] {
			kept = append(kept, p)
			delete(keep, n.Value)
		}
	}
	for name := range keep {
		return &SpecError{Path: at, Line: only.Line, Msg: fmt.Sprintf("no part named %q in this spec", name)}
	}
	parts.Content = kept
	return nil
}

// splitParts takes parts out of the root and returns each part's own
// spec: the root with the part's fields written over it.
func splitParts(root *yaml.Node) ([]*yaml.Node, []string, error) {
	parts := specyaml.Take(root, "parts")
	if parts == nil {
		return nil, nil, nil
	}
	if parts.Kind != yaml.SequenceNode || len(parts.Content) == 0 {
		return nil, nil, &SpecError{Path: "parts", Line: parts.Line, Msg: "want a list of parts, each a name and the fields it sets, e.g. [{name: small, payloads: [...]}]"}
	}
	var (
		out   []*yaml.Node
		names []string
	)
	for i, p := range parts.Content {
		at := fmt.Sprintf("parts[%d]", i)
		if p.Kind != yaml.MappingNode {
			return nil, nil, &SpecError{Path: at, Line: p.Line, Msg: "want a mapping: a name and the spec fields this part sets"}
		}
		name := specyaml.Lookup(p, "name")
		switch {
		case name == nil || name.Value == "":
			return nil, nil, &SpecError{Path: at + ".name", Line: p.Line, Msg: "every part needs a name (results and reports label its runs with it)"}
		case slices.Contains(names, name.Value):
			return nil, nil, &SpecError{Path: at + ".name", Line: name.Line, Msg: fmt.Sprintf("%q names two parts", name.Value)}
		}
		spec := specyaml.Clone(root)
		for j := 0; j+1 < len(p.Content); j += 2 {
			key := p.Content[j]
			if key.Value == "name" {
				continue
			}
			if slices.Contains(experimentOnly, key.Value) {
				return nil, nil, &SpecError{Path: at + "." + key.Value, Line: key.Line, Msg: "set for the whole experiment, at the top level, not in a part"}
			}
			specyaml.Set(spec, key, p.Content[j+1])
		}
		for _, k := range experimentOnly {
			specyaml.Take(spec, k)
		}
		out, names = append(out, spec), append(names, name.Value)
	}
	return out, names, nil
}

// ScaleNames lists the scales a spec names, in its order; none for YAML
// that does not parse or has no scales.
func ScaleNames(data []byte) []string {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	scales := specyaml.Lookup(doc.Content[0], "scales")
	if scales == nil || scales.Kind != yaml.MappingNode {
		return nil
	}
	var names []string
	for i := 0; i < len(scales.Content); i += 2 {
		names = append(names, scales.Content[i].Value)
	}
	return names
}
