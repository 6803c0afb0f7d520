package ranking

import (
	"fmt"
	"reflect"
	"time"

	"github.com/invopop/jsonschema"
	"go.yaml.in/yaml/v3"

	"github.com/hopbench/hopbench/internal/specyaml"
)

// Repetitions is how many times each case is made: a count (every case
// that many times), or rounds until each case's ranking is decided: Min
// rounds of every case, then more rounds of the cases whose neighbouring
// stacks are neither separated nor tied yet, until each is decided, Max
// rounds are made or Budget is spent.
type Repetitions struct {
	Min    int               `yaml:"min" json:"min,omitempty" jsonschema_description:"Rounds of every case first (default 4: Mann–Whitney cannot separate 3 runs against 3 at 0.05)."`
	Max    int               `yaml:"max" json:"max,omitempty" jsonschema_description:"The most rounds a case gets (default 10)."`
	Until  string            `yaml:"until" json:"until,omitempty" jsonschema:"enum=decided" jsonschema_description:"decided: rounds go on for the cases not yet decided."`
	Budget specyaml.Duration `yaml:"budget" json:"budget,omitempty" jsonschema_description:"The most time the rounds after min may take; none when zero."`
}

// UntilDecided is Repetitions.Until for rounds until decided.
const UntilDecided = "decided"

// DefaultAlpha is the spec's alpha when it gives none.
const DefaultAlpha = 0.05

// Adaptive reports whether rounds go on until the cases are decided.
func (r Repetitions) Adaptive() bool { return r.Until == UntilDecided }

// Rounds is the rounds every case gets first.
func (r Repetitions) Rounds() int { return r.Min }

func (r *Repetitions) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		var count int
		if err := n.Decode(&count); err != nil {
			return fmt.Errorf("want a count, such as 5, or {min: 4, max: 10, until: decided, budget: 6m}")
		}
		*r = Repetitions{Min: count, Max: count}
		return nil
	}
	var x Repetitions
	type plain Repetitions // without this method
	if err := specyaml.Decode(n, reflect.ValueOf((*plain)(&x)).Elem(), "repetitions"); err != nil {
		return err
	}
	*r = x
	return nil
}

func (Repetitions) JSONSchema() *jsonschema.Schema {
	obj := (&jsonschema.Reflector{DoNotReference: true, FieldNameTag: "yaml"}).Reflect(&struct {
		Min    int    `yaml:"min" jsonschema_description:"Rounds of every case first (default 4)."`
		Max    int    `yaml:"max" jsonschema_description:"The most rounds a case gets (default 10)."`
		Until  string `yaml:"until" jsonschema:"enum=decided"`
		Budget string `yaml:"budget" jsonschema_description:"The most time the rounds after min may take, e.g. 6m."`
	}{})
	obj.Version, obj.ID = "", ""
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{{Type: "integer", Minimum: "1", Maximum: "1000"}, obj},
		Description: "Times each case is made (a count; results show median (min–max); default 1), or rounds until its ranking is decided: {min: 4, max: 10, until: decided, budget: 6m}."}
}

// Defaults fills a policy's zeros: one run of each case, or an adaptive
// policy's min 4 and max 10.
func (r *Repetitions) Defaults() {
	switch {
	case r.Min == 0 && r.Max == 0 && !r.Adaptive():
		r.Min, r.Max = 1, 1
	case r.Adaptive():
		r.Min = max(r.Min, 0)
		if r.Min == 0 {
			r.Min = 4
		}
		if r.Max == 0 {
			r.Max = max(10, r.Min)
		}
	case r.Max == 0:
		r.Max = r.Min
	}
}

// Check names what is wrong with the policy.
func (r Repetitions) Check() error {
	switch {
	case r.Until != "" && !r.Adaptive():
		return fmt.Errorf("until %q: want decided (or leave it out for a fixed count)", r.Until)
	case !r.Adaptive() && r.Max == r.Min && (r.Min < 1 || r.Min > 1000):
		return fmt.Errorf("%d: want 1 to 1000", r.Min)
	case r.Min < 1 || r.Min > 1000 || r.Max < r.Min || r.Max > 1000:
		return fmt.Errorf("min %d, max %d: want 1 ≤ min ≤ max ≤ 1000", r.Min, r.Max)
	case !r.Adaptive() && r.Max != r.Min:
		return fmt.Errorf("max %d without until: decided: a fixed count is one number", r.Max)
	case r.Budget < 0 || r.Budget != 0 && !r.Adaptive():
		return fmt.Errorf("budget %v: a positive time, with until: decided", time.Duration(r.Budget))
	}
	return nil
}
