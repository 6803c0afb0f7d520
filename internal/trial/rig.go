package trial

import (
	"context"
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
	if x.jvm, err = jvmNodes(cases); err != nil {
		return nil, err
	}
	bcfg := cfg.Brokers
	if bcfg.Bin == "" {
		bcfg.Bin = cfg.Bin
	}
	if slices.ContainsFunc(cases, func(c Case) bool { return c.TLS }) {
		if x.tls, err = certs.LoadOrCreate(x.tlsDir(), x.lab.Addrs()...); err != nil {
			return nil, err
		}
		// Brokers the experiment starts take TLS too, with its
		// certificates, beside plain clients.
		bcfg.TLSDir, bcfg.MTLS = x.tlsDir(), slices.ContainsFunc(cases, func(c Case) bool { return c.MTLS })
	}
	bcfg, addrs := kernelBrokers(x.lab, bcfg, cfg.BrokerAddrs)
	x.brokers = newBrokerSet(bcfg, addrs)
	x.brokers.onStart = cfg.OnBroker
	if x.agents, err = dialHosts(ctx, cfg.Hosts, cfg.AgentAuth); err != nil {
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
// removes the lab and the JVM's seeds.
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
