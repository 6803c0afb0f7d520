package trial

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/proxy"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
	"github.com/hopbench/hopbench/internal/topology"
	"github.com/hopbench/hopbench/internal/transport"
)

// errProxyExited ends a run whose proxy went away.
var errProxyExited = fmt.Errorf("a proxy exited during the run (%w)", load.ErrServiceDied)

// hops is what lies on a run's hops, chosen once from its case: nothing,
// or a mesh of sidecars.
type hops interface {
	// open starts the proxies that go before the nodes (a broker's,
	// through leg) and says where the nodes listen and how they are
	// started (behind their proxies).
	open(ctx context.Context, leg brokerLeg, listen string) (string, startWrap, error)
	// processes are the proxies running.
	processes() []*proxy.Process
	// exited says which proxy ended the run and how, into rec.
	exited(rec *results.Record) (outcome, reason string)
	close()
}

// hopsOf chooses the hops of c: a mesh of sidecars under dir (the rig's
// directory; "" for a temporary one) when the case has proxies.
func hopsOf(c *Case, dir, tlsDir string) hops {
	if c.Proxy == nil {
		return noHops{}
	}
	return &sidecars{c: c, dir: dir, tlsDir: tlsDir}
}

// noHops is a run without proxies.
type noHops struct{}

func (noHops) open(_ context.Context, _ brokerLeg, listen string) (string, startWrap, error) {
	return listen, same, nil
}
func (noHops) processes() []*proxy.Process             { return nil }
func (noHops) exited(*results.Record) (string, string) { return results.OutcomeProxyDied, "" }
func (noHops) close()                                  {}

// sidecars is a run's mesh of proxies, under dir/proxies/runN/ROLE/ (each
// proxy's configuration and log, removed after a run whose proxies all
// ended well); root holds every run's proxies' files, and temp is where
// they went when the rig has no directory.
type sidecars struct {
	c           *Case
	dir, tlsDir string
	mesh        *proxy.Mesh
	// undo is what close undoes, in reverse: the temporary directory
	// made, the mesh started.
	undo []func()
}

// open prepares the mesh and has the broker leg put it where the run's
// calls go: in front of its broker at once (its nodes and generator then
// call the broker through it), or in front of each node as it starts.
func (s *sidecars) open(ctx context.Context, leg brokerLeg, listen string) (string, startWrap, error) {
	dir := s.dir
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "hopbench-proxies-"); err != nil {
			return "", nil, err
		}
		s.undo = append(s.undo, func() { os.RemoveAll(dir) })
	}
	root := filepath.Join(dir, "proxies")
	mesh, err := proxy.New(proxy.Config{Settings: *s.c.Proxy, HTTP: transport.HTTPVersionOf(s.c.Stack.Transport, s.c.HTTP2),
		Dir: filepath.Join(root, "run"+strconv.Itoa(s.c.Index)), TLSDir: s.tlsDir})
	if err != nil {
		return "", nil, err
	}
	s.mesh = mesh
	s.undo = append(s.undo, func() {
		mesh.Close()
		os.Remove(root) // only if empty
	})
	return leg.front(ctx, mesh, listen, s.frontNodes)
}

func (s *sidecars) processes() []*proxy.Process { return s.mesh.Processes() }

// proxiedNode is a node as the run holds it.
type proxiedNode interface {
	runningNode
	Close() error
}

// fronted is a node whose callers dial the front of its hop's proxies.
type fronted struct {
	proxiedNode
	front string
}

func (f fronted) Addr() string { return f.front }

// frontNodes starts each node with start and then, on the hops the case's
// proxies take, the proxies in front of it: its callers (its caller
// node, or the generator for the entry node) dial them instead.
func (s *sidecars) frontNodes(start topology.StartFunc) topology.StartFunc {
	caller := map[int]int{}
	for from, to := range s.c.Topology.Downstream() {
		for _, d := range to {
			caller[d] = from
		}
	}
	return func(ctx context.Context, i int, downstream []string) (topology.Instance, error) {
		inst, err := start(ctx, i, downstream)
		if err != nil || !s.c.Proxy.OnHop(i) {
			return inst, err
		}
		hop := fmt.Sprintf("%d→%d", caller[i], i)
		if i == 0 {
			hop = "client→0"
		}
		front, err := s.mesh.Front(ctx, hop, inst.Addr())
		if err != nil {
			inst.Close()
			return nil, err
		}
		return fronted{inst.(proxiedNode), front}, nil
	}
}

// proxyRecords lists proxies as a record carries them.
func proxyRecords(ps []*proxy.Process) []results.Proxy {
	var out []results.Proxy
	for _, p := range ps {
		r := results.Proxy{Role: p.Role, Kind: p.Kind, Mode: string(p.Leg.Mode), PID: p.PID(), Listen: p.Leg.Listen, Upstream: p.Leg.Upstream}
		switch {
		case p.Leg.Accept != nil:
			r.TLS = "accept"
		case p.Leg.Originate != nil:
			r.TLS = "originate"
		}
		out = append(out, r)
	}
	return out
}

// proxyMeter reads the proxies' CPU, memory and the bytes on their
// legs over the window; nil for a run without proxies. Their CPU is the
// scheduler's (stats.TaskCPU), finer than clock ticks: one proxy's share
// of a short window is a few ticks.
func proxyMeter(h hops) meterStart {
	return func(context.Context) meter {
		var pids []int
		var legs0 []stats.SocketBytes
		for _, p := range h.processes() {
			pids = append(pids, p.PID())
			b, _ := stats.ReadSocketBytes(p.PID())
			legs0 = append(legs0, b)
		}
		if len(pids) == 0 {
			return nil
		}
		return proxyUsage{newUsage(pids, true), pids, legs0}
	}
}

// proxyUsage reads the proxies' usage and legs over the window.
type proxyUsage struct {
	w     *usageWindow
	pids  []int
	legs0 []stats.SocketBytes
}

func (u proxyUsage) end(_ context.Context, requests int64, got *readings) {
	got.proxies = u.w.end(requests)
	for i, pid := range u.pids {
		got.legs = append(got.legs, legsPerRequest(pid, u.legs0[i], requests))
	}
}

// legsPerRequest is what pid's connections carried since before, per
// request; nil when either reading failed or no request was made.
func legsPerRequest(pid int, before stats.SocketBytes, requests int64) *results.WirePerRequest {
	after, err := stats.ReadSocketBytes(pid)
	if before == nil || err != nil || requests == 0 {
		return nil
	}
	sent, received := after.Since(before)
	n := float64(requests)
	return &results.WirePerRequest{Sent: float64(sent) / n, Received: float64(received) / n}
}

// watchProxies calls exited once if any of ps ends before the run does.
func watchProxies(ps []*proxy.Process, exited func()) (stop func()) {
	var dones []<-chan struct{}
	for _, p := range ps {
		dones = append(dones, p.Done())
	}
	return watchExits(dones, exited)
}

// exited says which proxy ended the run and how.
func (s *sidecars) exited(rec *results.Record) (string, string) {
	reason := "a proxy exited during the run"
	for i, p := range s.mesh.Processes() {
		if st := p.Exit(); st != "" {
			rec.Proxies[i].Exit = st
			reason = fmt.Sprintf("proxy %s (%s, pid %d) exited during the run: %s", p.Role, p.Kind, p.PID(), st)
		}
	}
	return results.OutcomeProxyDied, reason
}

// close stops the run's proxies (after its nodes), and removes the
// proxies' directory once no run's files are left in it.
func (s *sidecars) close() {
	for i := len(s.undo) - 1; i >= 0; i-- {
		s.undo[i]()
	}
}
