// Package topology says which node calls which: direct, chain:N, tree:D and
// star:N, and starts a whole topology leaves first so every node knows its
// downstream addresses when it starts.
package topology

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Topology is a shape of services. Node 0 is the entry node the client calls.
type Topology struct {
	Kind string // direct, chain, tree or star
	N    int    // chain: nodes; tree: depth; star: leaves
}

// Parse reads direct, chain:N, tree:D or star:N.
func Parse(s string) (Topology, error) {
	kind, arg, hasArg := strings.Cut(strings.TrimSpace(s), ":")
	if kind == "direct" && !hasArg {
		return Topology{Kind: "direct", N: 1}, nil
	}
	n, err := strconv.Atoi(arg)
	limits := map[string][2]int{"chain": {1, 64}, "tree": {1, 6}, "star": {1, 64}}
	lim, known := limits[kind]
	switch {
	case !known:
		return Topology{}, fmt.Errorf("topology %q: unknown kind (known: direct, chain:N, tree:D, star:N)", s)
	case !hasArg || err != nil:
		return Topology{}, fmt.Errorf("topology %q: want %s:N with N a whole number", s, kind)
	case n < lim[0] || n > lim[1]:
		return Topology{}, fmt.Errorf("topology %q: N must be from %d to %d", s, lim[0], lim[1])
	}
	return Topology{Kind: kind, N: n}, nil
}

// Linear says whether every node calls at most one other (direct and
// chain:N): the topologies a node with a single downstream serves and a
// path of versions describes.
func (t Topology) Linear() bool { return t.Kind == "direct" || t.Kind == "chain" }

func (t Topology) String() string {
	if t.Kind == "direct" {
		return "direct"
	}
	return t.Kind + ":" + strconv.Itoa(t.N)
}

// Downstream returns, for every node, the indices of the nodes it calls.
// chain:N is N nodes in a line (N-1 inter-service hops); tree:D is a binary
// tree with D levels below the root (2^(D+1)-1 nodes); star:N is a gateway
// and N leaves.
func (t Topology) Downstream() [][]int {
	switch t.Kind {
	case "chain":
		calls := make([][]int, t.N)
		for i := range t.N - 1 {
			calls[i] = []int{i + 1}
		}
		return calls
	case "tree":
		nodes := 1<<(t.N+1) - 1
		calls := make([][]int, nodes)
		for i := range nodes {
			if l := 2*i + 1; l < nodes {
				calls[i] = []int{l, l + 1}
			}
		}
		return calls
	case "star":
		calls := make([][]int, t.N+1)
		for i := 1; i <= t.N; i++ {
			calls[0] = append(calls[0], i)
		}
		return calls
	}
	return [][]int{nil}
}

// Nodes is how many services the topology has.
func (t Topology) Nodes() int { return len(t.Downstream()) }

// Instance is one started node.
type Instance interface {
	Addr() string
	Close() error
}

// StartFunc starts node i, which calls the given downstream addresses.
type StartFunc func(ctx context.Context, i int, downstream []string) (Instance, error)

// Start starts every node, leaves first, and returns them indexed as in
// Downstream (entry node first). On failure, what was started is closed.
func Start(ctx context.Context, t Topology, start StartFunc) ([]Instance, error) {
	calls := t.Downstream()
	nodes := make([]Instance, len(calls))
	// Every node's downstream has a higher index, so descending order starts
	// callees before their callers.
	for i := len(calls) - 1; i >= 0; i-- {
		addrs := make([]string, len(calls[i]))
		for j, d := range calls[i] {
			addrs[j] = nodes[d].Addr()
		}
		inst, err := start(ctx, i, addrs)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("starting node %d of %s: %w", i, t, err), Close(nodes))
		}
		nodes[i] = inst
	}
	return nodes, nil
}

// Close closes every started node.
func Close(nodes []Instance) error {
	var errs []error
	for _, n := range nodes {
		if n != nil {
			errs = append(errs, n.Close())
		}
	}
	return errors.Join(errs...)
}
