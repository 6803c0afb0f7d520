package specyaml

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/invopop/jsonschema"
	"go.yaml.in/yaml/v3"
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
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{{Type: "boolean"}, {Type: "array", Items: &jsonschema.Schema{Type: "boolean"}, MinItems: Ptr(uint64(1))}}}
}

// Ptr is a pointer to v (for schemas' bounds).
func Ptr[T any](v T) *T { return &v }
