package kubernetes

import (
	"slices"
	"testing"

	"github.com/hopbench/hopbench/internal/experiment"
)

// The coordinator's spec is one hopbench itself takes: it parses and
// validates, and its runs are placed as the manifests expect.
func TestTheCoordinatorsSpecIsAValidExperiment(t *testing.T) {
	s, err := experiment.ReadFile("spec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range s.Runs() {
		p := r.Placement
		if p == nil || !slices.Equal(p.Generator, []string{"a"}) || !slices.Equal(p.Nodes, []string{"b", "c", "b"}) {
			t.Errorf("%s: placed %+v, want the generator on a and the nodes on b, c, b", r.Case(), p)
		}
	}
}
