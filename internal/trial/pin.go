package trial

import (
	"fmt"
	"runtime"

	"github.com/hopbench/hopbench/internal/cpuset"
)

// pinning places the generator and the nodes on CPUs. On a small machine
// the scheduler dominates a loopback round trip, so a result records how
// its processes were placed. Nodes pin themselves (hopbench node --cpus);
// the generator is this process, pinned while a run is measured.
type pinning struct {
	mode      string
	generator cpuset.Set
	nodes     cpuset.Set
	all       cpuset.Set
}

func newPinning(mode string) (*pinning, error) {
	n := runtime.NumCPU()
	p := &pinning{mode: mode}
	for c := range n {
		p.all = append(p.all, c)
	}
	switch mode {
	case "", "none":
		p.mode = "none"
	case "split":
		if n < 2 {
			return nil, fmt.Errorf("pin: split needs at least 2 CPUs; this machine has %d (use same or none)", n)
		}
		p.generator, p.nodes = cpuset.Set{0}, p.all[1:]
	case "same":
		p.generator, p.nodes = cpuset.Set{0}, cpuset.Set{0}
	default:
		return nil, fmt.Errorf("pin: %q: want none, split or same", mode)
	}
	return p, nil
}

// String is what a result records, e.g. "split: generator on CPUs 0, nodes on CPUs 1".
func (p *pinning) String() string {
	if p.mode == "none" {
		return "none"
	}
	return fmt.Sprintf("%s: generator on CPUs %s, nodes on CPUs %s", p.mode, p.generator, p.nodes)
}

// pinGenerator moves every thread of this process to the generator's CPUs
// (threads started later inherit it); the returned func undoes it.
func (p *pinning) pinGenerator() (undo func(), err error) {
	if p.mode == "none" {
		return func() {}, nil
	}
	if err := cpuset.PinProcess(p.generator); err != nil {
		return func() {}, fmt.Errorf("pin: %w", err)
	}
	return func() { cpuset.PinProcess(p.all) }, nil
}
