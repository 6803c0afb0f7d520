package trial

import (
	"cmp"
	"context"
	"net"
	"path/filepath"
	"slices"

	"github.com/hopbench/hopbench/internal/broker"
	"github.com/hopbench/hopbench/internal/network"
	"github.com/hopbench/hopbench/internal/wire"
)

// netPath is the network a run's connections cross: none (loopback), a
// profile emulated inside the processes, or the kernel's, between hosts
// of the lab's own.
type netPath interface {
	// measure sets the network up and measures it as the run's
	// connections will cross it; nil when nothing is emulated.
	measure(ctx context.Context) (*network.Measured, error)
	// from is the generator's host, its connections' origin; nil for here.
	from() wire.Origin
	// host places node i: the command that execs it on its host and the
	// address it serves on; nil for here.
	host() func(i int) (exec []string, addr string)
	// inProcess is the profile each process emulates on the connections
	// it dials (loopback: none).
	inProcess() network.Profile
}

func (x *Rig) netPathOf(c *Case) netPath {
	switch {
	case c.KernelNetwork:
		return kernelNet{lab: x.lab, profile: c.Network}
	case !c.Network.IsLoopback():
		return inProcessNet{profile: c.Network}
	}
	return loopbackNet{}
}

type loopbackNet struct{}

func (loopbackNet) measure(context.Context) (*network.Measured, error) { return nil, nil }
func (loopbackNet) from() wire.Origin                                  { return nil }
func (loopbackNet) host() func(int) ([]string, string)                 { return nil }
func (loopbackNet) inProcess() network.Profile                         { return network.Profile{} }

// inProcessNet is a profile emulated on each connection a process dials
// (the generator's and the nodes'; they are told it by flag).
type inProcessNet struct {
	loopbackNet
	profile network.Profile
}

func (n inProcessNet) inProcess() network.Profile { return n.profile }

func (n inProcessNet) measure(ctx context.Context) (*network.Measured, error) {
	m, err := network.Measure(ctx, n.profile)
	if err != nil {
		return nil, err
	}
	return &m, nil
}

// kernelNet is the kernel's emulated network between the lab's hosts: the
// generator on the first, node i on host i+1.
type kernelNet struct {
	lab     *network.Lab
	profile network.Profile
}

func (n kernelNet) measure(ctx context.Context) (*network.Measured, error) {
	if err := n.lab.Shape(n.profile); err != nil {
		return nil, err
	}
	m, err := network.MeasureKernel(ctx, n.profile, n.lab.Hosts()[0], n.lab.Hosts()[1])
	if err != nil {
		return nil, err
	}
	return &m, nil
}

func (kernelNet) inProcess() network.Profile { return network.Profile{} }

func (n kernelNet) from() wire.Origin { return n.lab.Hosts()[0] }

func (n kernelNet) host() func(int) ([]string, string) {
	return func(i int) ([]string, string) {
		h := n.lab.Hosts()[i+1]
		return h.Exec(), h.Addr
	}
}

// kernelLab makes the experiment's hosts when its runs cross the kernel's
// emulated network: a host for the generator and one for each node of the
// largest topology, the brokers on the lab's address here. It first
// refuses, before anything starts, what this machine cannot make (no root,
// no tbf, delay without netem), and removes the namespaces of earlier runs
// that died without removing them.
func kernelLab(cases []Case) (*network.Lab, error) {
	if !slices.ContainsFunc(cases, func(c Case) bool { return c.KernelNetwork }) {
		return nil, nil
	}
	hosts := 0
	caps := network.Detect()
	for _, c := range cases {
		if !c.KernelNetwork {
			continue
		}
		if err := c.Network.CheckKernel(caps); err != nil {
			return nil, err
		}
		hosts = max(hosts, c.Topology.Nodes()+1)
	}
	if err := network.CleanStale(); err != nil {
		return nil, err
	}
	return network.NewLab(hosts)
}

// kernelBrokers places the brokers on the lab's address, beside hopbench,
// with data of their own.
func kernelBrokers(lab *network.Lab, cfg broker.Config, addrs map[string]string) (broker.Config, map[string]string) {
	if lab == nil {
		return cfg, addrs
	}
	out := map[string]string{}
	for name, addr := range broker.DefaultAddr {
		_, port, _ := net.SplitHostPort(addr)
		out[name] = net.JoinHostPort(lab.Here, port)
	}
	cfg.Dir = filepath.Join(cmp.Or(cfg.Dir, broker.DefaultDir()), "lab")
	return cfg, out
}
