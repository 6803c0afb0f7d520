package network

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"
	"go.yaml.in/yaml/v3"

	"github.com/hopbench/hopbench/internal/specyaml"
)

// Profiles are the emulated networks a spec's runs cross, each a named
// profile (loopback, lan, region, wan), a settings string
// ("delay=5ms,bandwidth=8mbit") or a mapping {delay, jitter, bandwidth};
// a list multiplies the matrix.
type Profiles []Profile

const networksWant = "want a named profile (loopback, lan, region, wan), settings such as {delay: 5ms, jitter: 100us, bandwidth: 8mbit}, or a list of them"

func (ns *Profiles) UnmarshalYAML(n *yaml.Node) (err error) {
	*ns, err = specyaml.OneOrList(n, networksWant, parseNetwork)
	return err
}

func parseNetwork(n *yaml.Node) (Profile, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		return Parse(n.Value)
	case yaml.MappingNode:
		var m map[string]string
		if err := n.Decode(&m); err != nil {
			return Profile{}, fmt.Errorf("network: %w", err)
		}
		parts := make([]string, 0, len(m))
		for k, v := range m {
			parts = append(parts, k+"="+v)
		}
		slices.Sort(parts)
		return Parse(strings.Join(parts, ","))
	}
	return Profile{}, errors.New(networksWant)
}

func (Profiles) JSONSchema() *jsonschema.Schema {
	settings := &jsonschema.Schema{Type: "object", AdditionalProperties: jsonschema.FalseSchema, Properties: jsonschema.NewProperties()}
	settings.Properties.Set("delay", &jsonschema.Schema{Type: "string", Description: "One-way delay on each direction of every hop, e.g. 5ms."})
	settings.Properties.Set("jitter", &jsonschema.Schema{Type: "string", Description: "Each delay varies uniformly by up to this much either way (at most the delay)."})
	settings.Properties.Set("bandwidth", &jsonschema.Schema{Type: "string", Description: "Cap on each direction of each connection, in tc's units: 8mbit, 100mbit, 1gbit."})
	one := &jsonschema.Schema{OneOf: []*jsonschema.Schema{{Type: "string"}, settings}}
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{one, {Type: "array", Items: one, MinItems: specyaml.Ptr(uint64(1))}}}
}
