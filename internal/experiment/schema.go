package experiment

import (
	"encoding/json"
	"slices"

	"github.com/invopop/jsonschema"
)

// JSONSchema is the spec's JSON Schema (draft 2020-12), generated from
// Spec so it cannot drift from what Parse accepts; editors that read
// JSON Schema can check and complete specs with it.
func JSONSchema() ([]byte, error) {
	r := &jsonschema.Reflector{FieldNameTag: "yaml", DoNotReference: true, ExpandedStruct: true, RequiredFromJSONSchemaTags: true}
	s := r.Reflect(&Spec{})
	s.ID = "https://github.com/hopbench/hopbench/schema/experiment.schema.json"
	s.Title = "hopbench experiment"
	s.Description = "An experiment: every combination of its lists is one run. See docs/run.md."
	loads := s.Properties.Value("loads")
	loads.Items.OneOf = []*jsonschema.Schema{{Required: []string{"closed"}}, {Required: []string{"rate"}}, {Required: []string{"ramp"}}, {Required: []string{"capacity"}}}
	overrides(s)
	return json.MarshalIndent(s, "", "  ")
}

// overrides gives parts and scales (Overrides, reflected as any mapping)
// the fields Parse lets them set, each referring to the top level's, so
// a misspelling is caught in them too; and a spec with parts may leave
// the top level's required fields to its parts.
func overrides(s *jsonschema.Schema) {
	s.If = &jsonschema.Schema{Not: &jsonschema.Schema{Required: []string{"parts"}}}
	s.Then, s.Required = &jsonschema.Schema{Required: s.Required}, nil
	part := fieldsOf(s, experimentOnly...)
	part.Properties.Set("name", &jsonschema.Schema{Type: "string", Description: "The part's name: results and reports label its runs with it."})
	part.Properties.MoveToFront("name")
	part.Required = []string{"name"}
	s.Properties.Value("parts").Items = part
	scale := fieldsOf(s, "name", "scales", "parts")
	scale.Properties.Set("parts", &jsonschema.Schema{Type: "object", AdditionalProperties: fieldsOf(s, experimentOnly...),
		Description: "Fields written over the named parts': part name to fields."})
	scale.Properties.Set("only", &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "string"}, MinItems: ptr(uint64(1)),
		Description: "The parts this scale runs, by name; the others are left out."})
	s.Properties.Value("scales").AdditionalProperties = scale
}

// fieldsOf is a mapping of the top level's fields but those left out,
// each a reference to the top level's, and no others.
func fieldsOf(s *jsonschema.Schema, leftOut ...string) *jsonschema.Schema {
	o := &jsonschema.Schema{Type: "object", Properties: jsonschema.NewProperties(), AdditionalProperties: jsonschema.FalseSchema}
	for name := range s.Properties.KeysFromOldest() {
		if !slices.Contains(leftOut, name) {
			o.Properties.Set(name, &jsonschema.Schema{Ref: "#/properties/" + name})
		}
	}
	return o
}

func ptr[T any](v T) *T { return &v }
