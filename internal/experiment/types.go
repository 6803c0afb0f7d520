package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/invopop/jsonschema"
	"go.yaml.in/yaml/v3"

	"github.com/hopbench/hopbench/internal/specyaml"
)

// Duration, ByteSize and Bools are the spec's values of those kinds.
type (
	Duration = specyaml.Duration
	ByteSize = specyaml.ByteSize
	Bools    = specyaml.Bools
)

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
	*c, err = specyaml.OneOrList(n, connectionsWant, parseConnMode)
	return err
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
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{one, {Type: "array", Items: one, MinItems: specyaml.Ptr(uint64(1))}}}
}
