package experiment

import (
	"encoding/json"

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
	s.Description = "An experiment: every combination of its lists is one run. See the README."
	loads := s.Properties.Value("loads")
	loads.Items.OneOf = []*jsonschema.Schema{{Required: []string{"closed"}}, {Required: []string{"rate"}}, {Required: []string{"ramp"}}, {Required: []string{"capacity"}}}
	return json.MarshalIndent(s, "", "  ")
}
