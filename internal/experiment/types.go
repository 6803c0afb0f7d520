package experiment

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/invopop/jsonschema"
	"go.yaml.in/yaml/v3"

	"github.com/hopbench/hopbench/internal/network"
)

// Duration is a Go duration written as a string: 500ms, 10s, 5m.
type Duration time.Duration

func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("want a duration such as 500ms, 10s or 5m")
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("%q is not a duration (write e.g. 500ms, 10s or 5m)", n.Value)
	}
	if v < 0 {
		return fmt.Errorf("%q: want zero or more", n.Value)
	}
	*d = Duration(v)
	return nil
}

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

func (Duration) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Pattern: `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`, Examples: []any{"500ms", "10s", "5m"}}
}

// ByteSize is a size in bytes written with an optional unit: 400MiB, 1GiB,
// 512KiB, 1000000.
type ByteSize int64

var byteUnits = []struct {
	suffix string
	mult   int64
}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}

func (b *ByteSize) UnmarshalYAML(n *yaml.Node) error {
	s := strings.TrimSpace(n.Value)
	mult := int64(1)
	for _, u := range byteUnits {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if n.Kind != yaml.ScalarNode || err != nil || v <= 0 {
		return fmt.Errorf("%q is not a size (write e.g. 400MiB, 1GiB or a number of bytes)", n.Value)
	}
	*b = ByteSize(v * float64(mult))
	return nil
}

func (ByteSize) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		OneOf:    []*jsonschema.Schema{{Type: "integer", Minimum: json.Number("1")}, {Type: "string", Pattern: `^[0-9.]+ ?(KiB|MiB|GiB|KB|MB|GB|B)?$`}},
		Examples: []any{"400MiB", "1GiB"},
	}
}

// Bools is a switch that can be measured both ways: true, false, or a list
// such as [false, true], which doubles the matrix.
type Bools []bool

func (b *Bools) UnmarshalYAML(n *yaml.Node) error {
	var one bool
	if n.Kind == yaml.ScalarNode {
		if err := n.Decode(&one); err != nil {
			return fmt.Errorf("want true, false or a list such as [false, true]")
		}
		*b = Bools{one}
		return nil
	}
	var many []bool
	if err := n.Decode(&many); err != nil || len(many) == 0 {
		return fmt.Errorf("want true, false or a list such as [false, true]")
	}
	*b = many
	return nil
}

func (Bools) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{{Type: "boolean"}, {Type: "array", Items: &jsonschema.Schema{Type: "boolean"}, MinItems: ptr(uint64(1))}}}
}

func ptr[T any](v T) *T { return &v }

// TransportOptions are stacks' own settings, written technology.option:
// value, e.g. amqp.reply: queue.
type TransportOptions map[string]string

func (o *TransportOptions) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("want a mapping of technology.option: value, e.g. {amqp.reply: queue, kafka.acks: leader}")
	}
	*o = TransportOptions{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			return fmt.Errorf("%s: want a single value", k.Value)
		}
		if _, dup := (*o)[k.Value]; dup {
			return fmt.Errorf("%s is given twice", k.Value)
		}
		(*o)[k.Value] = v.Value
	}
	return nil
}

// For returns the options of one technology, without its prefix.
func (o TransportOptions) For(tech string) map[string]string {
	var out map[string]string
	for k, v := range o {
		if t, name, _ := strings.Cut(k, "."); t == tech {
			if out == nil {
				out = map[string]string{}
			}
			out[name] = v
		}
	}
	return out
}

// Connections are the ways the generator connects to the entry node, each
// measured: a number N (N connections kept for the run and shared by the
// workers; 1, the default, is also written pooled) or per-request (a new
// connection, and with TLS a full handshake, for every call). A list such
// as [pooled, per-request] multiplies the matrix.
type Connections []ConnMode

// ConnMode is one way of connecting: Pooled connections kept for the run,
// or a new one for every call when PerRequest.
type ConnMode struct {
	Pooled     int
	PerRequest bool
}

// MaxPooled bounds pooled connections.
const MaxPooled = 1024

const connectionsWant = "want a number of pooled connections (1 to 1024), pooled (one), per-request, or a list such as [pooled, per-request]"

func (c *Connections) UnmarshalYAML(n *yaml.Node) (err error) {
	*c, err = oneOrList(n, connectionsWant, parseConnMode)
	return err
}

// oneOrList reads a node that is one item or a list of them, each by
// parse; an empty list, or an item given twice, is refused.
func oneOrList[T comparable](n *yaml.Node, want string, parse func(*yaml.Node) (T, error)) ([]T, error) {
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	if len(items) == 0 {
		return nil, errors.New(want)
	}
	var out []T
	for _, it := range items {
		v, err := parse(it)
		if err != nil {
			return nil, err
		}
		if slices.Contains(out, v) {
			return nil, fmt.Errorf("%q is given twice", cmp.Or(it.Value, fmt.Sprint(v)))
		}
		out = append(out, v)
	}
	return out, nil
}

func parseConnMode(n *yaml.Node) (ConnMode, error) {
	if n.Kind != yaml.ScalarNode {
		return ConnMode{}, errors.New(connectionsWant)
	}
	switch n.Value {
	case "pooled":
		return ConnMode{Pooled: 1}, nil
	case "per-request":
		return ConnMode{PerRequest: true}, nil
	}
	k, err := strconv.Atoi(n.Value)
	if err != nil || k < 1 || k > MaxPooled {
		return ConnMode{}, fmt.Errorf("%q: %s", n.Value, connectionsWant)
	}
	return ConnMode{Pooled: k}, nil
}

func (Connections) JSONSchema() *jsonschema.Schema {
	one := &jsonschema.Schema{OneOf: []*jsonschema.Schema{
		{Type: "integer", Minimum: json.Number("1"), Maximum: json.Number(strconv.Itoa(MaxPooled))},
		{Type: "string", Enum: []any{"pooled", "per-request"}},
	}}
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{one, {Type: "array", Items: one, MinItems: ptr(uint64(1))}}}
}

// Networks are the emulated networks a spec's runs cross, each a named
// profile (loopback, lan, region, wan), a settings string
// ("delay=5ms,bandwidth=8mbit") or a mapping {delay, jitter, bandwidth};
// a list multiplies the matrix.
type Networks []network.Profile

const networksWant = "want a named profile (loopback, lan, region, wan), settings such as {delay: 5ms, jitter: 100us, bandwidth: 8mbit}, or a list of them"

func (ns *Networks) UnmarshalYAML(n *yaml.Node) (err error) {
	*ns, err = oneOrList(n, networksWant, parseNetwork)
	return err
}

func parseNetwork(n *yaml.Node) (network.Profile, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		return network.Parse(n.Value)
	case yaml.MappingNode:
		var m map[string]string
		if err := n.Decode(&m); err != nil {
			return network.Profile{}, fmt.Errorf("network: %w", err)
		}
		parts := make([]string, 0, len(m))
		for k, v := range m {
			parts = append(parts, k+"="+v)
		}
		slices.Sort(parts)
		return network.Parse(strings.Join(parts, ","))
	}
	return network.Profile{}, errors.New(networksWant)
}

func (Networks) JSONSchema() *jsonschema.Schema {
	settings := &jsonschema.Schema{Type: "object", AdditionalProperties: jsonschema.FalseSchema, Properties: jsonschema.NewProperties()}
	settings.Properties.Set("delay", &jsonschema.Schema{Type: "string", Description: "One-way delay on each direction of every hop, e.g. 5ms."})
	settings.Properties.Set("jitter", &jsonschema.Schema{Type: "string", Description: "Each delay varies uniformly by up to this much either way (at most the delay)."})
	settings.Properties.Set("bandwidth", &jsonschema.Schema{Type: "string", Description: "Cap on each direction of each connection, in tc's units: 8mbit, 100mbit, 1gbit."})
	one := &jsonschema.Schema{OneOf: []*jsonschema.Schema{{Type: "string"}, settings}}
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{one, {Type: "array", Items: one, MinItems: ptr(uint64(1))}}}
}
