package trial

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/hopbench/hopbench/internal/cgroup"
	"github.com/hopbench/hopbench/internal/nodeapi"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/topology"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/wire"
)

// runningNode is a node as a run sees it: a child process here
// (topology.Process) or one an agent runs on its host (agent.Node).
type runningNode interface {
	Addr() string
	AdminAddr() string
	PID() int
	Spawned() time.Time
	Done() <-chan struct{}
	// Exit says how it ended; "" while it runs.
	Exit() string
}

// nodeSet is a run's node processes with their memory groups and figures.
type nodeSet struct {
	limit  int64
	name   string
	mu     sync.Mutex
	groups map[int]*cgroup.Memory
	procs  []runningNode
	insts  []topology.Instance
	// lost says which node reported it could not serve, and why.
	lost string
	// reset zeroes a node's figures (default: POST /reset to its admin);
	// resetErr is the first failure to.
	reset    func(ctx context.Context, adminAddr string) error
	resetErr error
	// heapLogs are the JVM nodes' GC logs, by node, which close removes.
	heapLogs map[int]string
}

// started places a node in its memory group as soon as it exists.
func (n *nodeSet) started(i, pid int) error {
	if n.limit == 0 {
		return nil
	}
	g, err := cgroup.NewMemory(fmt.Sprintf("%s-node%d", n.name, i), n.limit)
	if err != nil {
		return err
	}
	n.mu.Lock()
	if n.groups == nil {
		n.groups = map[int]*cgroup.Memory{}
	}
	n.groups[i] = g
	n.mu.Unlock()
	return g.Add(pid)
}

// set holds the started nodes; a node behind proxies is watched, reset
// and timed at its own address (its boot is its own, not its proxies').
func (n *nodeSet) set(insts []topology.Instance) {
	n.insts = insts
	for _, in := range insts {
		if f, ok := in.(fronted); ok {
			in = f.proxiedNode
		}
		n.procs = append(n.procs, in.(runningNode))
	}
}

// boot times each node from its spawn to its first good reply.
func (n *nodeSet) boot(ctx context.Context, st transport.Stack, tcfg transport.Config) ([]results.Node, error) {
	out := make([]results.Node, len(n.procs))
	for i, p := range n.procs {
		out[i] = results.Node{Index: i, PID: p.PID()}
		probe, err := probeNode(ctx, st, p.Addr(), tcfg)
		if err != nil {
			return nil, fmt.Errorf("node %d: %w", i, err)
		}
		deadline := time.Now().Add(bootWithin)
		for err = probe.Probe(ctx); err != nil && time.Now().Before(deadline) && ctx.Err() == nil; err = probe.Probe(ctx) {
			time.Sleep(5 * time.Millisecond)
		}
		probe.Close()
		if err != nil {
			return nil, fmt.Errorf("node %d gave no good reply within %v: %w", i, bootWithin, err)
		}
		out[i].BootMs = float64(time.Since(p.Spawned()).Microseconds()) / 1000
	}
	return out, nil
}

// watch calls exited once if any node ends before the run does.
func (n *nodeSet) watch(exited func()) (stop func()) {
	dones := make([]<-chan struct{}, len(n.procs))
	for i, p := range n.procs {
		dones[i] = p.Done()
	}
	return watchExits(dones, exited)
}

// watchExits calls exited if any of dones closes before stop: the
// processes of a run (nodes, proxies) that must outlive it.
func watchExits(dones []<-chan struct{}, exited func()) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for _, d := range dones {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-d:
				exited()
			case <-done:
			}
		}()
	}
	return func() { close(done); wg.Wait() }
}

// watchHealth calls unavailable once if any node's admin /ready answers
// 503 (a broker stack's node that lost its broker connection) before the
// run ends. It asks every half second, only of broker stacks' nodes.
func (n *nodeSet) watchHealth(unavailable func(why string)) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if why := n.unavailable(ctx); why != "" {
				unavailable(why)
				return
			}
		}
	}()
	return func() { cancel(); <-finished }
}

// unavailable says which node answers /ready with 503 and why; "" when
// none does. A node that does not answer at all is the exit watch's.
func (n *nodeSet) unavailable(ctx context.Context) string {
	for i, p := range n.procs {
		if ok, why, err := (nodeapi.Admin{Addr: p.AdminAddr()}).Ready(ctx); err == nil && !ok {
			return fmt.Sprintf("node %d: %s", i, why)
		}
	}
	return ""
}

// windowStart zeroes the nodes' own figures as the measured window opens.
// A node whose /reset fails fails the run: its figures would include the
// warm-up.
func (n *nodeSet) windowStart(ctx context.Context) {
	reset := n.reset
	if reset == nil {
		reset = func(ctx context.Context, addr string) error { return nodeapi.Admin{Addr: addr}.Reset(ctx) }
	}
	for i, p := range n.procs {
		if err := reset(ctx, p.AdminAddr()); err != nil && n.resetErr == nil {
			n.resetErr = fmt.Errorf("node %d: its admin /reset failed (%v), so its figures would include the warm-up", i, err)
		}
	}
}

// pids are the nodes' processes.
func (n *nodeSet) pids() []int {
	pids := make([]int, len(n.procs))
	for i, p := range n.procs {
		pids[i] = p.PID()
	}
	return pids
}

// windowEnd reads each node's figures for the window into out; a node
// whose /stats cannot be read says why.
func (n *nodeSet) windowEnd(ctx context.Context, out []results.Node) {
	var err error
	for i, p := range n.procs {
		if out[i].Stats, err = (nodeapi.Admin{Addr: p.AdminAddr()}).Stats(ctx); err != nil {
			out[i].StatsError = err.Error()
		}
	}
}

// nodesWire sums the bytes the nodes' own connections carried, from their
// stats.
func nodesWire(nodes []results.Node) wire.Totals {
	var total wire.Totals
	for _, n := range nodes {
		if n.Stats != nil && n.Stats.Wire != nil {
			total.Written += n.Stats.Wire.Written
			total.Read += n.Stats.Wire.Read
		}
	}
	return total
}

// exitOutcome says which node ended the run and why.
func (n *nodeSet) exitOutcome(out []results.Node) (outcome, reason string) {
	outcome, reason = results.OutcomeNodeDied, ""
	for i, p := range n.procs {
		st := p.Exit()
		if st == "" {
			continue
		}
		out[i].Exit = st
		if g := n.groups[i]; g != nil && g.OOMKills() > 0 {
			return results.OutcomeOutOfMemory, fmt.Sprintf("node %d was killed by its %d MiB memory limit", i, n.limit>>20)
		}
		reason = fmt.Sprintf("node %d exited during the run: %s", i, st)
	}
	return outcome, reason
}

func (n *nodeSet) close() {
	topology.Close(n.insts)
	for _, path := range n.heapLogs {
		os.Remove(path)
	}
	for _, g := range n.groups {
		g.Close()
	}
}
