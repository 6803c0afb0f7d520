// Package placement is where a run's processes live on hosts of their
// own: a spec's hosts and placements, checked, and resolved for the nodes
// of a run's topology.
package placement

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"
	"go.yaml.in/yaml/v3"

	"github.com/hopbench/hopbench/internal/specyaml"
)

// Host is a host of the experiment's and its agent (hopbench agent).
type Host struct {
	Name  string `yaml:"name" json:"name" jsonschema:"required" jsonschema_description:"The host's name, which placement uses."`
	Agent string `yaml:"agent" json:"agent,omitempty" jsonschema_description:"The agent's address, host:port. Default: the host of that name that hopbench hosts up made on this machine."`
}

// Spec puts the parts of each run on hosts, as a spec writes it.
type Spec struct {
	Name      string `yaml:"name" json:"name,omitempty" jsonschema_description:"The placement's name, in the runs' cases (needed when there are several)."`
	Generator Names  `yaml:"generator" json:"generator,omitempty" jsonschema_description:"The host, or hosts, the load is sent from; a load split across several is merged exactly (histograms). Default: the first host."`
	Nodes     Names  `yaml:"nodes" json:"nodes,omitempty" jsonschema_description:"The host of each node, entry node first; a shorter list repeats (node i on nodes[i mod length]). Default: every host in turn (round-robin)."`
	Broker    string `yaml:"broker" json:"broker,omitempty" jsonschema_description:"The host a broker stack's broker runs on, started there by its agent (at the broker's usual port, data under the agent's directory). Default: the entry node's host."`
}

// Names are one host's name or a list of them.
type Names []string

func (h *Names) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*h = Names{n.Value}
		return nil
	}
	var many []string
	if err := n.Decode(&many); err != nil || len(many) == 0 {
		return fmt.Errorf("want a host's name or a list of them")
	}
	*h = many
	return nil
}

func (Names) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{{Type: "string"}, {Type: "array", Items: &jsonschema.Schema{Type: "string"}, MinItems: specyaml.Ptr(uint64(1))}}}
}

// List is one placement or a list of named ones, each measured.
type List []Spec

func (p *List) UnmarshalYAML(n *yaml.Node) error {
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	*p = nil
	for i, item := range items {
		var one Spec
		if err := specyaml.Decode(item, reflect.ValueOf(&one).Elem(), fmt.Sprintf("placement[%d]", i)); err != nil {
			return err
		}
		*p = append(*p, one)
	}
	return nil
}

func (List) JSONSchema() *jsonschema.Schema {
	one := (&jsonschema.Reflector{DoNotReference: true}).Reflect(&Spec{})
	one.Version, one.ID = "", ""
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{one, {Type: "array", Items: one, MinItems: specyaml.Ptr(uint64(1))}}}
}

// Placement is where a run's parts are: the generator's hosts and each
// node's, entry node first.
type Placement struct {
	Name string `json:"name,omitempty"`
	// Index is the placement's place in the spec's list.
	Index     int      `json:"index"`
	Generator []string `json:"generator"`
	Nodes     []string `json:"nodes"`
	Broker    string   `json:"broker"`
}

// Place resolves p, the spec's index-th, over hosts for a topology of n
// nodes.
func (p Spec) Place(index int, hosts []Host, n int) *Placement {
	out := &Placement{Name: p.Name, Index: index, Generator: p.Generator}
	if len(out.Generator) == 0 {
		out.Generator = []string{hosts[0].Name}
	}
	from := []string(p.Nodes)
	if len(from) == 0 {
		for _, h := range hosts {
			from = append(from, h.Name)
		}
	}
	for i := range n {
		out.Nodes = append(out.Nodes, from[i%len(from)])
	}
	out.Broker = cmp.Or(p.Broker, out.Nodes[0])
	return out
}

// String says where the parts are, e.g. "gen a · nodes b,c,b".
func (p *Placement) String() string {
	return "gen " + strings.Join(p.Generator, "+") + " · nodes " + strings.Join(p.Nodes, ",")
}

// StringFor says where the parts of a run are, the broker's host too for
// a run through a broker.
func (p *Placement) StringFor(brokered bool) string {
	if brokered {
		return p.String() + " · broker " + p.Broker
	}
	return p.String()
}

// Check checks hosts and placements: unique names, every placed name a
// host, naming each field at fault to bad.
func Check(hosts []Host, places List, bad func(path, format string, args ...any)) {
	if len(hosts) == 0 {
		if len(places) > 0 {
			bad("placement", "no hosts to place on: list them under hosts ({name: a, agent: HOST:PORT}, or names alone after hopbench hosts up)")
		}
		return
	}
	var names []string
	for i, h := range hosts {
		at := fmt.Sprintf("hosts[%d]", i)
		switch {
		case h.Name == "" || strings.ContainsAny(h.Name, " ,+/"):
			bad(at+".name", "%q: give each host a name without spaces, commas, + or /", h.Name)
		case slices.Contains(names, h.Name):
			bad(at+".name", "%q is given twice", h.Name)
		}
		names = append(names, h.Name)
	}
	for i, p := range places {
		at := fmt.Sprintf("placement[%d]", i)
		if len(slices.Compact(slices.Sorted(slices.Values(p.Generator)))) < len(p.Generator) {
			bad(at+".generator", "a host is listed twice: each generator host sends one share of the load")
		}
		if len(places) > 1 && (p.Name == "" || slices.IndexFunc(places, func(q Spec) bool { return q.Name == p.Name }) != i) {
			bad(at+".name", "%q: several placements need a name each, all different", p.Name)
		}
		for _, list := range []struct {
			field string
			names []string
		}{{"generator", p.Generator}, {"nodes", p.Nodes}, {"broker", Names{p.Broker}}} {
			for _, n := range list.names {
				if n != "" && !slices.Contains(names, n) {
					bad(at+"."+list.field, "%q is not a host; the hosts are %s", n, strings.Join(names, ", "))
				}
			}
		}
	}
}
