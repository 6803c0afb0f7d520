package trial

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/hopbench/hopbench/internal/agent"
	"github.com/hopbench/hopbench/internal/broker"
	"github.com/hopbench/hopbench/internal/hosts"
	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/userschema"
	agentv1 "github.com/hopbench/hopbench/schema/hopbench/agent/v1"
)

// agents are an experiment's sessions on its hosts' agents, by host name.
type agents map[string]*agent.Client

// dialHosts holds a session on each host's agent, authenticating with
// auth, that brings the users' messages the cases carry; hosts named
// without an agent address are those hopbench hosts up made, whose
// certificates are used when auth gives none.
func dialHosts(ctx context.Context, specs []Host, auth agent.Auth, cases []Case) (agents, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	specs, auth, err := resolveHosts(specs, auth)
	if err != nil {
		return nil, err
	}
	messages, err := usersMessages(cases)
	if err != nil {
		return nil, err
	}
	out := agents{}
	for _, h := range specs {
		c, err := agent.Dial(ctx, h.Name, h.Agent, auth, messages...)
		if err != nil {
			out.close()
			return nil, err
		}
		out[h.Name] = c
	}
	return out, nil
}

// usersMessages are the users' messages cases carry, each once, bundled
// for the hosts.
func usersMessages(cases []Case) ([]userschema.Bundle, error) {
	var out []userschema.Bundle
	seen := map[string]bool{}
	for _, c := range cases {
		p, ok := userschema.Used(c.Model)
		if c.Proto == nil || !ok || seen[c.Model] {
			continue
		}
		seen[c.Model] = true
		b, err := p.Bundle()
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

func resolveHosts(specs []Host, auth agent.Auth) ([]Host, agent.Auth, error) {
	specs = slices.Clone(specs)
	var lab *hosts.State
	for i, h := range specs {
		if h.Agent != "" {
			continue
		}
		if lab == nil {
			var err error
			if lab, err = hosts.Read(hosts.Dir()); errors.Is(err, os.ErrNotExist) {
				return nil, auth, fmt.Errorf("host %s has no agent address and no hosts are up here: run hopbench hosts up %d first, or give hosts[%d].agent", h.Name, len(specs), i)
			} else if err != nil {
				return nil, auth, err
			}
		}
		up, ok := lab.Find(h.Name)
		if !ok {
			return nil, auth, fmt.Errorf("host %s has no agent address and hopbench hosts up made no host of that name (it made %d: a, b, ...)", h.Name, len(lab.Hosts))
		}
		specs[i].Agent = up.Agent
	}
	if auth.TLS == nil && auth.Token == "" {
		if lab == nil {
			return nil, auth, errors.New("the spec's hosts have agents: give hopbench run --tls-dir (their certificate bundle) or --token-file")
		}
		var err error
		if auth, err = agent.LoadAuth(lab.TLSDir, ""); err != nil {
			return nil, auth, err
		}
	}
	return specs, auth, nil
}

// hostBroker is a broker on a host, started there by its agent.
type hostBroker struct{ c *agent.Client }

func (h hostBroker) ensure(ctx context.Context, name string) (*broker.Broker, error) {
	return h.c.StartBroker(ctx, name)
}

func (a agents) close() {
	for _, c := range a {
		c.Close()
	}
}

// hostsWindow reads each host's counters, and those of the run's
// processes there, as the measured window opens and as it ends.
type hostsWindow struct {
	agents    agents
	placement *Placement
	brokers   []string         // the run's brokers, on the placement's broker host
	split     *shares          // the load's shares, each one's figures
	pids      map[string][]int // the run's processes, by host
	start     map[string]*agentv1.UsageReply
	failed    map[string]error // why a host has no figures
}

// hostsReading is what the hosts of a run placed on them measured over
// its window.
type hostsReading struct {
	placement *Placement
	hosts     []results.Host
	// procs are each process's usage, by host and PID.
	procs map[string]map[int]results.Usage
	// each is each generator share's figures.
	each []load.Measured
	// brokerPIDs are the run's brokers' processes on their host, by name.
	brokerPIDs map[string]int
}

// hostsMeter is the meter of the hosts of a run split into shares.
func hostsMeter(a agents, p *Placement, nodes *nodeSet, leg brokerLeg, split *shares) meterStart {
	return func(ctx context.Context) meter {
		return startHosts(ctx, &hostsWindow{agents: a, placement: p, brokers: leg.names(), split: split, pids: runPIDs(a, p, nodes, leg)})
	}
}

func startHosts(ctx context.Context, w *hostsWindow) meter {
	a, pids := w.agents, w.pids
	w.start, w.failed = map[string]*agentv1.UsageReply{}, map[string]error{}
	for name, c := range a {
		u, err := c.Usage(ctx, pids[name], true)
		if err != nil {
			w.failed[name] = err
			continue
		}
		w.start[name] = u
	}
	return w
}

// runPIDs are the run's processes by host: its nodes and its broker.
func runPIDs(a agents, p *Placement, nodes *nodeSet, leg brokerLeg) map[string][]int {
	out := map[string][]int{}
	for i, n := range nodes.procs {
		out[p.Nodes[i]] = append(out[p.Nodes[i]], n.PID())
	}
	for _, name := range leg.names() {
		if pid := a[p.Broker].BrokerPID(name); pid != 0 {
			out[p.Broker] = append(out[p.Broker], pid)
		}
	}
	return out
}

// end reads the hosts' figures over the window.
func (w *hostsWindow) end(ctx context.Context, requests int64, got *readings) {
	hs, procs := w.figures(ctx, requests)
	pids := map[string]int{}
	for _, name := range w.brokers {
		pids[name] = w.agents[w.placement.Broker].BrokerPID(name)
	}
	got.hosts = &hostsReading{placement: w.placement, hosts: hs, procs: procs, each: w.split.each, brokerPIDs: pids}
}

// figures returns each host's figures over the window, in name order (a
// host whose agent could not say them with why), and each process's
// usage by host and PID.
func (w *hostsWindow) figures(ctx context.Context, requests int64) ([]results.Host, map[string]map[int]results.Usage) {
	var out []results.Host
	procs := map[string]map[int]results.Usage{}
	for _, name := range slices.Sorted(maps.Keys(w.agents)) {
		c, u0 := w.agents[name], w.start[name]
		u1, err := c.Usage(ctx, w.pids[name], false)
		if err == nil {
			err = w.failed[name]
		}
		if err != nil {
			out = append(out, results.Host{Name: name, Agent: c.Addr, UsageError: err.Error()})
			continue
		}
		h := results.Host{Name: name, Agent: c.Addr, MachineCPUSeconds: u1.HostCpuSeconds - u0.HostCpuSeconds,
			NetRxBytes: u1.NetRxBytes - u0.NetRxBytes, NetTxBytes: u1.NetTxBytes - u0.NetTxBytes}
		h.CPUSeconds = u1.Agent.GetCpuSeconds() - u0.Agent.GetCpuSeconds()
		procs[name] = map[int]results.Usage{}
		for _, p := range u1.Processes {
			before := processOf(u0.Processes, p.Pid)
			use := results.Usage{CPUSeconds: p.CpuSeconds - before.GetCpuSeconds(), RSSBytes: p.RssBytes, PeakRSS: p.PeakRssBytes, AnonRSS: p.AnonRssBytes}
			if requests > 0 {
				use.CPUUsPerReq = use.CPUSeconds * 1e6 / float64(requests)
			}
			procs[name][int(p.Pid)] = use
			h.CPUSeconds += use.CPUSeconds
		}
		if requests > 0 {
			h.CPUUsPerReq = h.CPUSeconds * 1e6 / float64(requests)
			h.NetPerReq = &results.WirePerRequest{Sent: float64(h.NetTxBytes) / float64(requests), Received: float64(h.NetRxBytes) / float64(requests)}
		}
		out = append(out, h)
	}
	return out, procs
}

func processOf(ps []*agentv1.Process, pid int32) *agentv1.Process {
	for _, p := range ps {
		if p.Pid == pid {
			return p
		}
	}
	return nil
}
