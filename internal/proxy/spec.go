package proxy

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"
	"go.yaml.in/yaml/v3"

	"github.com/hopbench/hopbench/internal/broker"
	"github.com/hopbench/hopbench/internal/specyaml"
	"github.com/hopbench/hopbench/internal/topology"
	"github.com/hopbench/hopbench/internal/transport"
)

// List is the proxies a spec's runs put on their hops, each measured:
// none, or settings {kind, mode, sidecars, mtls, client, hops}; a list
// multiplies the matrix. nil stands for none.
type List []*Settings

const proxiesWant = "want none, settings such as {kind: haproxy, mode: l7, sidecars: 2, mtls: true}, or a list of them"

// proxyFields are the keys a proxy's settings take.
var proxyFields = []string{"kind", "mode", "sidecars", "mtls", "client", "hops"}

func (ps *List) UnmarshalYAML(n *yaml.Node) (err error) {
	*ps, err = specyaml.OneOrList(n, proxiesWant, parseProxy)
	return err
}

func parseProxy(n *yaml.Node) (*Settings, error) {
	switch {
	case n.Kind == yaml.ScalarNode && (n.Value == "none" || n.Tag == "!!null"):
		return nil, nil
	case n.Kind != yaml.MappingNode:
		return nil, errors.New(proxiesWant)
	}
	for i := 0; i < len(n.Content); i += 2 {
		if k := n.Content[i].Value; !slices.Contains(proxyFields, k) {
			return nil, fmt.Errorf("proxy: unknown field %q (known: %s)", k, strings.Join(proxyFields, ", "))
		}
	}
	var s Settings
	if err := n.Decode(&s); err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	if s.Sidecars == 0 {
		s.Sidecars = 1
	}
	return &s, nil
}

func (List) JSONSchema() *jsonschema.Schema {
	settings := &jsonschema.Schema{Type: "object", AdditionalProperties: jsonschema.FalseSchema, Properties: jsonschema.NewProperties(), Required: []string{"kind", "mode"}}
	var kinds []any
	for _, k := range Kinds() {
		kinds = append(kinds, k)
	}
	settings.Properties.Set("kind", &jsonschema.Schema{Type: "string", Enum: kinds, Description: "The proxy program: haproxy or nginx (Debian's packages, installed by scripts/setup.sh)."})
	settings.Properties.Set("mode", &jsonschema.Schema{Type: "string", Enum: []any{"l4", "l7"}, Description: "l4 relays TCP; l7 parses HTTP (HTTP/1.1, or HTTP/2 both sides for gRPC)."})
	settings.Properties.Set("sidecars", &jsonschema.Schema{Type: "integer", Enum: []any{1, 2}, Description: "Proxies a hop: 1, or 2 (a mesh: an outbound sidecar beside the caller, an inbound one beside the callee). Default 1."})
	settings.Properties.Set("mtls", &jsonschema.Schema{Type: "boolean", Description: "With sidecars 2: mutual TLS between the outbound and the inbound sidecar."})
	settings.Properties.Set("client", &jsonschema.Schema{Type: "boolean", Description: "Proxies on the generator's call to the entry node too."})
	settings.Properties.Set("hops", &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "integer", Minimum: "1"}, Description: "Only these hops, each named by the node called (1: node 0's call to node 1). Default: every inter-service hop."})
	one := &jsonschema.Schema{OneOf: []*jsonschema.Schema{{Type: "string", Enum: []any{"none"}}, {Type: "null"}, settings}}
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{one, {Type: "array", Items: one, MinItems: specyaml.Ptr(uint64(1))}}}
}

// With is what a spec runs its proxies with: its stacks as written, its
// topologies, whether some run has TLS or HTTP/2, runs on hosts of their
// own or in kernel network mode.
type With struct {
	Stacks               []string
	Topologies           []topology.Topology
	TLS, HTTP2           bool
	Hosts, KernelNetwork bool
}

// Check checks each proxy's settings, and that every stack, topology and
// switch w names goes with it, naming each field at fault to bad.
func (ps List) Check(w With, bad func(path, format string, args ...any)) {
	for i, p := range ps {
		if p == nil {
			continue
		}
		at := "proxy"
		if len(ps) > 1 {
			at = fmt.Sprintf("proxy[%d]", i)
		}
		p.check(at, w, bad)
	}
}

func (p *Settings) check(at string, w With, bad func(string, string, ...any)) {
	if _, err := Lookup(p.Kind); err != nil {
		bad(at+".kind", "%v", err)
	}
	switch {
	case p.Mode != L4 && p.Mode != L7:
		bad(at+".mode", "%q: want l4 (TCP relayed) or l7 (HTTP parsed)", p.Mode)
	case p.Sidecars != 1 && p.Sidecars != 2:
		bad(at+".sidecars", "%d: want 1 (one proxy a hop) or 2 (an outbound and an inbound sidecar)", p.Sidecars)
	case p.MTLS && p.Sidecars != 2:
		bad(at+".mtls", "mutual TLS is between an outbound and an inbound sidecar: set sidecars: 2")
	case p.Mode == L7 && w.TLS:
		bad(at+".mode", "an l7 proxy would have to end the services' own TLS: leave tls false with l7 proxies (mtls: true encrypts the hop between sidecars), or use l4")
	case w.Hosts:
		bad(at, "proxies run on this machine's loopback: not with hosts of their own")
	case w.KernelNetwork:
		bad(at, "proxies run on this machine's loopback: not with network_mode kernel")
	}
	for j, h := range p.Hops {
		if h < 1 {
			bad(fmt.Sprintf("%s.hops[%d]", at, j), "%d: hops are named by the node called, from 1 (node 0's call to node 1); for the generator's call set client: true", h)
			continue
		}
		for _, t := range w.Topologies {
			if h >= t.Nodes() {
				bad(fmt.Sprintf("%s.hops[%d]", at, j), "%d: %s has no node %d (its nodes are 0 to %d)", h, t, h, t.Nodes()-1)
			}
		}
	}
	for i, st := range w.Stacks {
		if why := refusal(st, p, w.HTTP2, w.TLS); why != "" {
			bad(fmt.Sprintf("stacks[%d]", i), "%q with %s proxies: %s; list it in a part of its own without them", st, p.Mode, why)
		}
	}
}

// refusal says why p's proxies cannot carry a stack's calls; "" when
// they can. A broker stack takes L4 proxies in front of its broker.
func refusal(stack string, p *Settings, http2, tls bool) string {
	st, err := transport.ParseStack(stack)
	if err != nil {
		return "" // reported at the stack
	}
	if why := transport.UnproxiedWhy(st.Transport); why != "" {
		return why
	}
	brokered := transport.StackBroker(st) != ""
	switch {
	case tls && broker.AdvertisesAddresses(transport.StackBroker(st)):
		return broker.PlainProxyListener
	case brokered && p.Mode == L7:
		return "its calls go through a broker over the broker's own protocol, which only an l4 proxy relays (in front of the broker)"
	case brokered && (p.Client || len(p.Hops) > 0):
		return "its proxies stand in front of its broker, which every node and the generator call: leave out client and hops"
	case p.Mode == L7 && transport.HTTPVersionOf(st.Transport, http2) == "":
		return "an l7 proxy carries HTTP requests, and " + st.Transport + "'s calls are not plain HTTP requests (use l4)"
	}
	return ""
}
