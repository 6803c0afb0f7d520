package trial

import (
	"context"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/network"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/topology"
)

// A rig makes the cases it was made for: one it was not (no lab for a
// kernel network, no seeds for a JVM node's seed, no session on a host) or
// whose parts do not go together is refused before anything starts.
func TestARigRefusesACaseItWasNotMadeFor(t *testing.T) {
	chain, _ := topology.Parse("chain:2")
	onHosts := &Placement{Generator: []string{"a"}, Nodes: []string{"b", "b"}, Broker: "b"}
	x := &Rig{pin: &pinning{mode: "none"}, agents: agents{}}
	for _, c := range []struct {
		name string
		c    Case
		want string
	}{
		{"kernel network, no lab", Case{Topology: chain, KernelNetwork: true, Network: network.Profile{}}, "no lab"},
		{"JVM, no seeds", Case{Topology: chain, JVM: &JVM{}, Seed: 7}, "no seeds for its seed 7"},
		{"a host with no session", Case{Topology: chain, Placement: onHosts}, `host "a"`},
		{"hosts and the independent generator", Case{Topology: chain, Placement: onHosts, Generator: Independent}, "independent"},
		{"hosts and the kernel lab", Case{Topology: chain, Placement: onHosts, KernelNetwork: true}, "no lab"},
	} {
		err := x.Make(context.Background(), &c.c, &results.Record{}, Hooks{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}
