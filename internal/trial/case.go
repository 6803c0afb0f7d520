// Package trial makes one run: from a typed case it assembles the run's
// parts through small interfaces chosen once (where the nodes run, which
// generator drives them, where the broker is, what network lies between),
// measures one window and fills the run's record. Package experiment
// parses a spec into cases and calls it for each.
package trial

import (
	"github.com/hopbench/hopbench/internal/oneway"
	"time"

	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/network"
	"github.com/hopbench/hopbench/internal/proxy"
	"github.com/hopbench/hopbench/internal/topology"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/userschema"
)

// Case is one run's configuration as typed values, parsed and validated
// once by its caller.
type Case struct {
	// Index is the run's place in its experiment (names its memory
	// groups).
	Index    int
	Stack    transport.Stack
	Topology topology.Topology
	Op       transport.Op
	Model    string
	// Proto is the user's message Model names, if it is one: nodes load
	// and register it before they serve.
	Proto *userschema.Source
	// ProtoV2 is its version 2, for schema trials (nil: none).
	ProtoV2 *userschema.Files
	Count   int
	// Messages is a feed's length (Op feed); 0 otherwise.
	Messages int
	Seed     uint64
	// Load is the engine's configuration, its SLA and timeout set.
	Load    load.Config
	Timeout time.Duration
	// TransportOptions are the stack's own settings, without prefix.
	TransportOptions   map[string]string
	TLS, MTLS          bool
	HTTP2, Cache       bool
	Connections        int
	PerRequest         bool
	Memory, GoMemLimit int64
	Generator          Generator
	Network            network.Profile
	KernelNetwork      bool
	JVM                *JVM
	Schema             evolution.Path
	Placement          *Placement
	// Proxy puts proxies on the run's hops (nil: none): in front of each
	// node its settings name, or for a broker stack in front of the
	// broker.
	Proxy *proxy.Settings
	// OneWay makes the run one-way messaging over its broker stack: the
	// generator publishes and consumes; no node runs.
	OneWay *oneway.Config
	// FreshBroker stops the run's broker, if this experiment started it,
	// and starts it anew before the run (fresh_brokers).
	FreshBroker bool
}

// Generator is what drives the entry node.
type Generator int

const (
	// Engine is hopbench's load engine.
	Engine Generator = iota
	// Independent is the independent cross-check client.
	Independent
)

// JVM says a case's nodes run on the JVM, with these JVM flags.
type JVM struct{ Flags []string }

// Placement puts a case's generator and each node (entry first) on the
// rig's hosts, and a broker stack's broker.
type Placement struct {
	Generator, Nodes []string
	Broker           string
}

// transport is the case's transport settings for its clients.
func (c *Case) transport() transport.Config {
	return transport.Config{HTTP2: c.HTTP2, Options: c.TransportOptions}
}

// target is the entry node at addr as the generator calls it.
func (c *Case) target(addr string, tcfg transport.Config) load.TargetConfig {
	return load.TargetConfig{Stack: c.Stack, Addr: addr, Transport: tcfg, Op: c.Op, Messages: c.Messages, Model: c.Model, Count: c.Count,
		Seed: c.Seed, Schema: c.Schema.Sender(), Connections: c.Connections, PerRequest: c.PerRequest, OneWay: c.OneWay != nil}
}
