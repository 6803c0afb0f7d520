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

// proxies prepares the run's mesh, if its case has proxies, under the
// rig's directory (proxies/runN/ROLE/: each proxy's configuration and
// log, removed after a run whose proxies all ended well); a broker stack's proxies go in front of its broker at once, and
// its nodes and generator then call the broker through them.
func (m *measurement) proxies(ctx context.Context) error {
	if m.c.Proxy == nil {
		return nil
	}
	dir := m.cfg.Dir
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "hopbench-proxies-"); err != nil {
			return err
		}
		m.proxyTemp = dir
	}
	mesh, err := proxy.New(proxy.Config{Settings: *m.c.Proxy, HTTP: transport.HTTPVersionOf(m.c.Stack.Transport, m.c.HTTP2),
		Dir: filepath.Join(dir, "proxies", "run"+strconv.Itoa(m.c.Index)), TLSDir: m.Rig.tlsDir()})
	m.proxyRoot = filepath.Join(dir, "proxies")
	if err != nil {
		return err
	}
	m.mesh = mesh
	if m.listen, m.fronts, err = m.leg.front(ctx, mesh, m.listen, m.frontNodes); err != nil {
		return err
	}
	m.recordProxies()
	return nil
}

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

// proxied starts each node with start, and then the proxies its broker
// leg put in front of it, if any.
func (m *measurement) proxied(start topology.StartFunc) topology.StartFunc {
	if m.mesh == nil {
		return start
	}
	return m.fronts(start)
}

// frontNodes starts each node with start and then, on the hops the case's
// proxies take, the proxies in front of it: its callers (its caller
// node, or the generator for the entry node) dial them instead.
func (m *measurement) frontNodes(start topology.StartFunc) topology.StartFunc {
	caller := map[int]int{}
	for from, to := range m.c.Topology.Downstream() {
		for _, d := range to {
			caller[d] = from
		}
	}
	return func(ctx context.Context, i int, downstream []string) (topology.Instance, error) {
		inst, err := start(ctx, i, downstream)
		if err != nil || !m.c.Proxy.OnHop(i) {
			return inst, err
		}
		hop := fmt.Sprintf("%d→%d", caller[i], i)
		if i == 0 {
			hop = "client→0"
		}
		front, err := m.mesh.Front(ctx, hop, inst.Addr())
		if err != nil {
			inst.Close()
			return nil, err
		}
		return fronted{inst.(proxiedNode), front}, nil
	}
}

// recordProxies lists the run's proxies in its record.
func (m *measurement) recordProxies() {
	m.rec.Proxies = nil
	for _, p := range m.mesh.Processes() {
		r := results.Proxy{Role: p.Role, Kind: p.Kind, Mode: string(p.Leg.Mode), PID: p.PID(), Listen: p.Leg.Listen, Upstream: p.Leg.Upstream}
		switch {
		case p.Leg.Accept != nil:
			r.TLS = "accept"
		case p.Leg.Originate != nil:
			r.TLS = "originate"
		}
		m.rec.Proxies = append(m.rec.Proxies, r)
	}
}

// proxyMeter reads the proxies' CPU, memory and the bytes on their
// legs over the window. Their CPU is the scheduler's (stats.TaskCPU),
// finer than clock ticks: one proxy's share of a short window is a few
// ticks.
func proxyMeter(m *measurement) meter {
	if m.mesh == nil {
		return nil
	}
	var pids []int
	var legs0 []stats.SocketBytes
	for _, p := range m.mesh.Processes() {
		pids = append(pids, p.PID())
		b, _ := stats.ReadSocketBytes(p.PID())
		legs0 = append(legs0, b)
	}
	return processUsage{newUsage(pids, true), func(m *measurement, each []results.Usage) {
		for i := range m.rec.Proxies {
			m.rec.Proxies[i].Usage = each[i]
			m.rec.Proxies[i].Legs = legsPerRequest(pids[i], legs0[i], m.rec.Requests)
		}
	}}
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

// watchProxies calls exited once if any proxy ends before the run does.
func (m *measurement) watchProxies(exited func()) (stop func()) {
	if m.mesh == nil {
		return func() {}
	}
	var dones []<-chan struct{}
	for _, p := range m.mesh.Processes() {
		dones = append(dones, p.Done())
	}
	return watchExits(dones, exited)
}

// proxyExited says which proxy ended the run and how.
func proxyExited(mesh *proxy.Mesh, rec *results.Record) (string, string) {
	reason := "a proxy exited during the run"
	for i, p := range mesh.Processes() {
		if st := p.Exit(); st != "" {
			rec.Proxies[i].Exit = st
			reason = fmt.Sprintf("proxy %s (%s, pid %d) exited during the run: %s", p.Role, p.Kind, p.PID(), st)
		}
	}
	return results.OutcomeProxyDied, reason
}

// closeMesh stops the run's proxies after its nodes, and removes the
// proxies' directory once no run's files are left in it.
func (m *measurement) closeMesh() {
	if m.mesh != nil {
		m.mesh.Close()
		os.Remove(m.proxyRoot) // only if empty
	}
	if m.proxyTemp != "" {
		os.RemoveAll(m.proxyTemp)
	}
}
