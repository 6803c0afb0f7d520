package load

import (
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// Connections read as one way or a list of them, each a number of pooled
// connections, pooled (one) or per-request; anything else names the forms.
func TestConnectionsReadEachWayOfConnecting(t *testing.T) {
	for in, want := range map[string]Connections{
		"4":                     {{Pooled: 4}},
		"pooled":                {{Pooled: 1}},
		"[pooled, per-request]": {{Pooled: 1}, {PerRequest: true}},
	} {
		var got Connections
		if err := yaml.Unmarshal([]byte(in), &got); err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"0", "1025", "sometimes", "{a: 1}"} {
		var got Connections
		if err := yaml.Unmarshal([]byte(in), &got); err == nil || !strings.Contains(err.Error(), "want a number of pooled connections") {
			t.Errorf("%s: %v, want the forms named", in, err)
		}
	}
}
