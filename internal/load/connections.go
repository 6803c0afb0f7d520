package load

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/invopop/jsonschema"
	"go.yaml.in/yaml/v3"

	"github.com/hopbench/hopbench/internal/specyaml"
)

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
