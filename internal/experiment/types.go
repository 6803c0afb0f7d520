package experiment

import (
	"fmt"
	"strings"

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
