// Package threshold holds figures to limits: a spec's thresholds: and
// hopbench run's and load's --threshold, parsed before anything runs,
// then judged on each case's median over its runs with its bootstrap
// interval, as reproduce judges a figure a study claims.
package threshold

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"
	"go.yaml.in/yaml/v3"

	"github.com/hopbench/hopbench/internal/specyaml"
)

// Rule is limits on the cases it selects: every case, or those of the
// stacks and topologies it names.
type Rule struct {
	Stacks, Topologies []string
	Limits             []Limit
	// Where names the rule for messages: thresholds, thresholds[1] or
	// --threshold.
	Where string
}

// Rules are an experiment's thresholds. In a spec, one mapping of keys
// to limits for every case, or a list of such mappings, each of which
// may select stacks and topologies:
//
//	thresholds: {p99: "< 10ms", errors: "< 0.1%"}
//	thresholds:
//	  - {p99: "< 10ms"}
//	  - {stacks: [grpc], topologies: [direct], p99: "< 2ms"}
type Rules []Rule

// UnmarshalYAML reads a spec's thresholds; a problem is a specyaml.Error
// whose path continues the field's (.p99, [1].stacks).
func (rs *Rules) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode {
		r, err := parseRule(n, "")
		*rs = Rules{r}
		return err
	}
	*rs = nil
	for i, item := range n.Content {
		r, err := parseRule(item, fmt.Sprintf("[%d]", i))
		if err != nil {
			return err
		}
		*rs = append(*rs, r)
	}
	return nil
}

// parseRule reads one mapping of a spec's thresholds, at path (relative
// to thresholds).
func parseRule(n *yaml.Node, path string) (Rule, error) {
	r := Rule{Where: "thresholds" + path}
	if n.Kind != yaml.MappingNode {
		return r, &specyaml.Error{Path: path, Line: n.Line, Msg: fmt.Sprintf("want a mapping of keys to limits, such as {p99: \"< 10ms\"}, or a list of them (keys: %s)", strings.Join(Keys(), ", "))}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		at := path + "." + k.Value
		switch {
		case k.Value == "stacks" || k.Value == "topologies":
			field := &r.Stacks
			if k.Value == "topologies" {
				field = &r.Topologies
			}
			if err := specyaml.Decode(v, reflect.ValueOf(field).Elem(), at); err != nil {
				return r, err
			}
		case slices.ContainsFunc(r.Limits, func(l Limit) bool { return l.Key == k.Value }):
			return r, &specyaml.Error{Path: at, Line: k.Line, Msg: "given twice"}
		case v.Kind != yaml.ScalarNode:
			return r, &specyaml.Error{Path: at, Line: v.Line, Msg: "want a limit such as \"< 10ms\""}
		default:
			l, err := ParseLimit(k.Value, v.Value)
			if e, ok := err.(*ExprError); ok {
				return r, &specyaml.Error{Path: at, Line: v.Line, Msg: fmt.Sprintf("%q: column %d: %s", e.Text, e.Column, e.Msg)}
			} else if err != nil {
				return r, &specyaml.Error{Path: at, Line: k.Line, Msg: fmt.Sprintf("not a threshold key (known: %s, and stacks and topologies to select cases)", strings.Join(Keys(), ", "))}
			}
			r.Limits = append(r.Limits, l)
		}
	}
	if len(r.Limits) == 0 {
		return r, &specyaml.Error{Path: path, Line: n.Line, Msg: fmt.Sprintf("no limit: give at least one key (%s)", strings.Join(Keys(), ", "))}
	}
	return r, nil
}

// JSONSchema is the thresholds' schema: a mapping, or a list of them.
func (Rules) JSONSchema() *jsonschema.Schema {
	rule := &jsonschema.Schema{Type: "object", Properties: jsonschema.NewProperties(), AdditionalProperties: jsonschema.FalseSchema}
	names := &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "string"}}
	rule.Properties.Set("stacks", withDescription(*names, "Only the cases of these stacks (as the spec's stacks name them)."))
	rule.Properties.Set("topologies", withDescription(*names, "Only the cases of these topologies."))
	for _, k := range keys {
		rule.Properties.Set(k.name, &jsonschema.Schema{Type: "string", Pattern: `^\s*(<|<=|>|>=)\s*[0-9.]+\s*\S*\s*$`,
			Description: k.doc + ".", Examples: []any{k.sample()}})
	}
	return &jsonschema.Schema{
		OneOf: []*jsonschema.Schema{rule, {Type: "array", Items: rule}},
		Description: "Limits on figures, judged on each case's median over its runs with its 95% bootstrap interval; one failed makes hopbench run exit 3 (docs/thresholds.md). " +
			"A mapping of keys to limits for every case, or a list of them, each of which may select stacks and topologies.",
	}
}

func withDescription(s jsonschema.Schema, d string) *jsonschema.Schema {
	s.Description = d
	return &s
}

// Selects says whether the rule applies to a case of stack and topology.
func (r Rule) Selects(stack, topology string) bool {
	return (len(r.Stacks) == 0 || slices.Contains(r.Stacks, stack)) &&
		(len(r.Topologies) == 0 || slices.Contains(r.Topologies, topology))
}

// Check refuses, before anything runs, a rule that selects none of the
// cases, or a limit on a figure none of the cases it selects records.
func (rs Rules) Check(cases []Subject) error {
	for _, r := range rs {
		var selected []Subject
		for _, c := range cases {
			if r.Selects(c.Stack, c.Topology) {
				selected = append(selected, c)
			}
		}
		if len(selected) == 0 {
			return fmt.Errorf("%s: stacks %v, topologies %v select none of the cases", r.Where, r.Stacks, r.Topologies)
		}
		for _, l := range r.Limits {
			k, _ := lookup(l.Key)
			if k.needs == nil {
				continue
			}
			if i := slices.IndexFunc(selected, func(s Subject) bool { return k.needs(s) == "" }); i < 0 {
				return fmt.Errorf("%s: %s: none of the cases it applies to records it: %s", r.Where, l, k.needs(selected[0]))
			}
		}
	}
	return nil
}
