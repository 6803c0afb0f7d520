package transport

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// StackOptions are stacks' own settings as a spec gives them, written
// technology.option: value, e.g. amqp.reply: queue; For is one
// technology's, as its Config.Options take them.
type StackOptions map[string]string

func (o *StackOptions) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("want a mapping of technology.option: value, e.g. {amqp.reply: queue, kafka.acks: leader}")
	}
	*o = StackOptions{}
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
func (o StackOptions) For(tech string) map[string]string {
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

// Check refuses, each at at.key, an option that names no technology's
// option, whose technology none of stacks is, or whose value its
// technology does not take (ResolveOptions).
func (o StackOptions) Check(at string, stacks []Stack, bad func(path, format string, args ...any)) {
	for _, key := range slices.Sorted(maps.Keys(o)) {
		path := at + "." + key
		tech, name, ok := strings.Cut(key, ".")
		tr, err := Lookup(tech)
		switch {
		case !ok || name == "":
			bad(path, "want technology.option, e.g. amqp.reply or kafka.acks")
			continue
		case err != nil:
			bad(path, "%v", err)
			continue
		case !slices.ContainsFunc(stacks, func(st Stack) bool { return st.Transport == tech }):
			bad(path, "no %s stack is listed in stacks, so the option would apply to nothing", tech)
			continue
		}
		if _, err := ResolveOptions(tr, map[string]string{name: o[key]}); err != nil {
			bad(path, "%v", err)
		}
	}
}
