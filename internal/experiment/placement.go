package experiment

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

// HostSpec is a host of the experiment's and its agent (hopbench agent).
type HostSpec struct {
	Name  string `yaml:"name" json:"name" jsonschema:"required" jsonschema_description:"The host's name, which placement uses."`
	Agent string `yaml:"agent" json:"agent,omitempty" jsonschema_description:"The agent's address, host:port. Default: the host of that name that hopbench hosts up made on this machine."`
}

// PlacementSpec puts the parts of each run on hosts.
type PlacementSpec struct {
	Name      string    `yaml:"name" json:"name,omitempty" jsonschema_description:"The placement's name, in the runs' cases (needed when there are several)."`
	Generator HostNames `yaml:"generator" json:"generator,omitempty" jsonschema_description:"The host, or hosts, the load is sent from; a load split across several is merged exactly (histograms). Default: the first host."`
	Nodes     HostNames `yaml:"nodes" json:"nodes,omitempty" jsonschema_description:"The host of each node, entry node first; a shorter list repeats (node i on nodes[i mod length]). Default: every host in turn (round-robin)."`
	Broker    string    `yaml:"broker" json:"broker,omitempty" jsonschema_description:"The host a broker stack's broker runs on, started there by its agent (at the broker's usual port, data under the agent's directory). Default: the entry node's host."`
}

// HostNames are one host's name or a list of them.
type HostNames []string

func (h *HostNames) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*h = HostNames{n.Value}
		return nil
	}
	var many []string
	if err := n.Decode(&many); err != nil || len(many) == 0 {
		return fmt.Errorf("want a host's name or a list of them")
	}
	*h = many
	return nil
}

func (HostNames) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{{Type: "string"}, {Type: "array", Items: &jsonschema.Schema{Type: "string"}, MinItems: specyaml.Ptr(uint64(1))}}}
}

// Placements are one placement or a list of named ones, each measured.
type Placements []PlacementSpec

func (p *Placements) UnmarshalYAML(n *yaml.Node) error {
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	*p = nil
	for i, item := range items {
		var one PlacementSpec
		if err := specyaml.Decode(item, reflect.ValueOf(&one).Elem(), fmt.Sprintf("placement[%d]", i)); err != nil {
			return err
		}
		*p = append(*p, one)
	}
	return nil
}

func (Placements) JSONSchema() *jsonschema.Schema {
	one := (&jsonschema.Reflector{DoNotReference: true}).Reflect(&PlacementSpec{})
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

// place resolves p, the spec's index-th, over hosts for a topology of n
// nodes.
func (p PlacementSpec) place(index int, hosts []HostSpec, n int) *Placement {
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

// validateHosts checks hosts and placement: unique names, every placed
// name a host, and what a run on hosts cannot do refused by name.
func (s *Spec) validateHosts(bad func(string, string, ...any)) {
	if len(s.Hosts) == 0 {
		if len(s.Placement) > 0 {
			bad("placement", "no hosts to place on: list them under hosts ({name: a, agent: HOST:PORT}, or names alone after hopbench hosts up)")
		}
		return
	}
	var names []string
	for i, h := range s.Hosts {
		at := fmt.Sprintf("hosts[%d]", i)
		switch {
		case h.Name == "" || strings.ContainsAny(h.Name, " ,+/"):
			bad(at+".name", "%q: give each host a name without spaces, commas, + or /", h.Name)
		case slices.Contains(names, h.Name):
			bad(at+".name", "%q is given twice", h.Name)
		}
		names = append(names, h.Name)
	}
	for i, p := range s.Placement {
		at := fmt.Sprintf("placement[%d]", i)
		if len(slices.Compact(slices.Sorted(slices.Values(p.Generator)))) < len(p.Generator) {
			bad(at+".generator", "a host is listed twice: each generator host sends one share of the load")
		}
		if len(s.Placement) > 1 && (p.Name == "" || slices.IndexFunc(s.Placement, func(q PlacementSpec) bool { return q.Name == p.Name }) != i) {
			bad(at+".name", "%q: several placements need a name each, all different", p.Name)
		}
		for _, list := range []struct {
			field string
			names []string
		}{{"generator", p.Generator}, {"nodes", p.Nodes}, {"broker", HostNames{p.Broker}}} {
			for _, n := range list.names {
				if n != "" && !slices.Contains(names, n) {
					bad(at+"."+list.field, "%q is not a host; the hosts are %s", n, strings.Join(names, ", "))
				}
			}
		}
	}
	s.refuseOnHosts(bad)
}

// refuseOnHosts names what runs on hosts do not do yet.
func (s *Spec) refuseOnHosts(bad func(string, string, ...any)) {
	for i, l := range s.Loads {
		if c := l.config(); c.Kind != "closed" && c.Kind != "rate" {
			bad(fmt.Sprintf("loads[%d]", i), "a %s load runs from one process: runs on hosts take closed and rate loads", c.Kind)
		}
	}
	for _, r := range []struct {
		on          bool
		field, what string
	}{
		{slices.Contains(s.TLS, true), "tls", "TLS between the hosts' nodes"},
		{s.Memory > 0, "memory", "memory limits"},
		{s.Pin != "none", "pin", "CPU pinning"},
		{s.NetworkMode == "kernel", "network_mode", "kernel network emulation (the hosts are namespaces already: shape them with hosts up --bandwidth)"},
		{slices.Contains(s.Generators, GeneratorIndependent), "generators", "the independent generator"},
		{len(s.Schemas) > 0, "schemas", "schema trials"},
	} {
		if r.on {
			bad(r.field, "runs on hosts do not take %s yet: leave it out of a spec with hosts", r.what)
		}
	}
}
