package trial

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/hopbench/hopbench/internal/agent"
	"github.com/hopbench/hopbench/internal/broker"
	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/network"
)

// RigConfig is what an experiment's runs share, as its runner sets it.
type RigConfig struct {
	// Bin is the hopbench binary the nodes are started from.
	Bin string
	// Dir is the experiment's results directory (its certificates go
	// under tls/).
	Dir string
	// NodeStderr receives the nodes' own output (default: discarded).
	NodeStderr io.Writer
	// Env is added to every node's environment.
	Env []string
	// Pin places the generator and the nodes on CPUs: none, split or
	// same.
	Pin string
	// MTLS makes the TLS listeners of the brokers the rig starts require
	// client certificates (the spec's mtls).
	MTLS bool
	// Brokers says where the brokers keep their data; BrokerAddrs
	// overrides a broker's address by name; OnBroker hears of each
	// broker made ready for a run.
	Brokers     broker.Config
	BrokerAddrs map[string]string
	OnBroker    func(*broker.Broker)
	// Hosts are the spec's hosts, by name, with their agents' addresses
	// ("" for those hopbench hosts up made); AgentAuth authenticates to
	// them.
	Hosts     []Host
	AgentAuth agent.Auth
	// ResetNode replaces the POST /reset that opens a node's measured
	// window (tests make it fail).
	ResetNode func(ctx context.Context, adminAddr string) error
}

// Host is a host of the experiment's and its agent's address.
type Host struct{ Name, Agent string }

// Rig is what an experiment's runs share: the brokers they start, the
// kernel's lab, the JVM's seeds, the sessions on the hosts' agents, the
// CPU placement and the certificates. Close releases it.
type Rig struct {
	cfg     RigConfig
	pin     *pinning
	tls     *certs.Bundle
	brokers *brokerSet
	lab     *network.Lab
	jvm     *jvmSetup
	agents  agents
}

// NewRig prepares what cases need before any is run: it refuses what
// this machine cannot do (kernel shaping, the JVM's build, pinning)
// before anything starts.
func NewRig(ctx context.Context, cfg RigConfig, cases []Case) (_ *Rig, err error) {
	if cfg.NodeStderr == nil {
		cfg.NodeStderr = io.Discard
	}
	x := &Rig{cfg: cfg}
	defer func() {
		if err != nil {
			x.Close(ctx)
		}
	}()
	if x.pin, err = newPinning(cfg.Pin); err != nil {
		return nil, err
	}
	if x.lab, err = kernelLab(cases); err != nil {
		return nil, err
	}
	if x.jvm, err = jvmNodes(cases, cfg.Dir); err != nil {
		return nil, err
	}
	bcfg := cfg.Brokers
	if bcfg.Bin == "" {
		bcfg.Bin = cfg.Bin
	}
	// Sidecars' mutual TLS takes the experiment's certificates too.
	if slices.ContainsFunc(cases, func(c Case) bool { return c.TLS || c.Proxy != nil && c.Proxy.MTLS }) {
		if x.tls, err = certs.LoadOrCreate(x.tlsDir(), x.lab.Addrs()...); err != nil {
			return nil, err
		}
	}
	if slices.ContainsFunc(cases, func(c Case) bool { return c.TLS }) {
		// Brokers the experiment starts take TLS too, with its
		// certificates, beside plain clients.
		bcfg.TLSDir, bcfg.MTLS = x.tlsDir(), cfg.MTLS
	}
	bcfg, addrs := kernelBrokers(x.lab, bcfg, cfg.BrokerAddrs)
	x.brokers = newBrokerSet(bcfg, addrs)
	x.brokers.onStart = cfg.OnBroker
	if x.agents, err = dialHosts(ctx, cfg.Hosts, cfg.AgentAuth, cases); err != nil {
		return nil, err
	}
	return x, nil
}

// Pinning says how the rig places its processes on CPUs, as records
// carry it.
func (x *Rig) Pinning() string { return x.pin.String() }

func (x *Rig) tlsDir() string { return filepath.Join(x.cfg.Dir, "tls") }

// Close stops the brokers the rig started (each once no other hopbench
// process uses it, or ctx ends), ends its sessions on the agents and
// removes the lab and the JVM's seeds (kept under Dir while it runs).
func (x *Rig) Close(ctx context.Context) {
	if x.brokers != nil {
		x.brokers.close(ctx)
	}
	x.agents.close()
	if x.jvm != nil {
		x.jvm.close()
	}
	if x.lab != nil {
		x.lab.Close()
	}
}

// check refuses, before anything of it starts, a case the rig was not
// made for (NewRig prepares what its cases need) or whose parts do not go
// together.
func (x *Rig) check(c *Case) error {
	switch {
	case c.KernelNetwork && (x.lab == nil || c.Topology.Nodes()+1 > len(x.lab.Hosts())):
		return fmt.Errorf("run %d crosses the kernel's network, and the rig has no lab of %d hosts for it: give NewRig every case", c.Index, c.Topology.Nodes()+1)
	case c.JVM != nil && (x.jvm == nil || x.jvm.seeds[c.Seed] == ""):
		return fmt.Errorf("run %d has JVM nodes, and the rig wrote no seeds for its seed %d: give NewRig every case", c.Index, c.Seed)
	case c.Proxy != nil && (c.Placement != nil || c.KernelNetwork):
		return fmt.Errorf("run %d has proxies, which run on this machine's loopback: not with hosts of their own or the kernel's network", c.Index)
	case c.Placement != nil:
		return x.checkPlacement(c)
	}
	return nil
}

// checkPlacement refuses a case placed on hosts the rig holds no session
// on, or with what runs on hosts do not take.
func (x *Rig) checkPlacement(c *Case) error {
	p := c.Placement
	switch {
	case c.Generator != Engine:
		return fmt.Errorf("run %d: runs on hosts are driven by hopbench's engine, not the independent generator", c.Index)
	case c.KernelNetwork:
		return fmt.Errorf("run %d: runs on hosts cross the hosts' network, not the kernel lab's", c.Index)
	case x.pin.mode != "none":
		return fmt.Errorf("run %d: runs on hosts are not pinned (pin: %s)", c.Index, x.pin.mode)
	}
	for _, h := range slices.Concat(p.Generator, p.Nodes, []string{p.Broker}) {
		if x.agents[h] == nil {
			return fmt.Errorf("run %d is placed on host %q, which the rig holds no session on: give NewRig its hosts", c.Index, h)
		}
	}
	return nil
}
