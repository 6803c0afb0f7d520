package trial

import (
	"context"
	"fmt"

	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/network"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
)

// A run's record is written here alone: its set-up steps keep what they
// made, its meters say what they measured, and these write the record.

// made is what a run's set-up made that its record carries.
type made struct {
	network   *network.Measured
	options   map[string]string
	encrypted *results.Encryption
	proxies   []results.Proxy
	nodes     []results.Node
	evolution []evolution.Trial
}

// recordSetUp writes what the set-up made into rec: as far as it got,
// for a run that could not be set up too.
func recordSetUp(rec *results.Record, s made) {
	rec.Network, rec.Encrypted, rec.Proxies, rec.Nodes, rec.Evolution = s.network, s.encrypted, s.proxies, s.nodes, s.evolution
	if len(s.options) > 0 {
		rec.TransportOptions = s.options
	}
}

// A meter reads figures over the measured window: it starts as the
// window opens (a meterStart; nil for nothing to measure) and, after the
// load, says what it read.
type meter interface {
	end(ctx context.Context, requests int64, got *readings)
}

type meterStart func(ctx context.Context) meter

// readings are what a run's meters read over its window.
type readings struct {
	// Each node's, the broker's and each proxy's usage, read here.
	nodes, brokers, proxies []results.Usage
	// legs are what each proxy's connections carried, per request.
	legs  []*results.WirePerRequest
	noise stats.Noise
	heaps map[int]heapReading
	// hosts are the hosts' figures, for a run placed on them.
	hosts *hostsReading
}

// collect writes the window's figures into rec: the generator's (as
// hopbench load records them: load.Measured.Record), the meters' (the
// processes' usage first), the nodes' own and what crossed the broker.
// Figures are read even from a run cut short: what was measured stays. A
// histogram that does not encode is an error, not a record without it.
func collect(ctx context.Context, rec *results.Record, got load.Measured, leg brokerLeg, nodes *nodeSet, meters []meter) error {
	if err := got.Record(rec); err != nil {
		return err
	}
	requests := got.Result.Requests
	rec.Brokers = leg.record()
	var r readings
	for _, mt := range meters {
		mt.end(ctx, requests, &r)
	}
	recordReadings(rec, r)
	nodes.windowEnd(ctx, rec.Nodes)
	for i := range rec.Brokers {
		rec.Brokers[i].Wire = brokerWire(rec.Nodes, requests, got.Wire)
	}
	return nil
}

// recordReadings writes the meters' readings into rec.
func recordReadings(rec *results.Record, r readings) {
	for i, u := range r.nodes {
		rec.Nodes[i].Usage = u
	}
	for i, u := range r.brokers {
		rec.Brokers[i].Usage = u
	}
	for i, u := range r.proxies {
		rec.Proxies[i].Usage, rec.Proxies[i].Legs = u, r.legs[i]
	}
	rec.Noise = &r.noise
	for i, h := range r.heaps {
		if i >= len(rec.Nodes) {
			continue
		}
		rec.Nodes[i].Heap, rec.Nodes[i].HeapError = h.heap, h.err
	}
	recordHosts(rec, r.hosts)
}

// recordHosts writes the hosts' figures and roles into rec, and each
// node's and the broker's host and usage; nothing for a run not placed
// on hosts.
func recordHosts(rec *results.Record, h *hostsReading) {
	if h == nil {
		return
	}
	p := h.placement
	rec.Generators = p.Generator
	for i := range h.hosts {
		host := &h.hosts[i]
		for g, name := range p.Generator {
			if name == host.Name {
				host.Roles = append(host.Roles, "generator")
				if g < len(h.each) {
					host.GeneratorRequests += h.each[g].Result.Requests
					host.GeneratorP50Us = stats.Summarize(h.each[g].Result.Latency).P50Us
				}
			}
		}
		for n, name := range p.Nodes {
			if name == host.Name {
				host.Roles = append(host.Roles, fmt.Sprintf("node %d", n))
			}
		}
		if len(h.brokerPIDs) > 0 && p.Broker == host.Name {
			host.Roles = append(host.Roles, "broker")
		}
	}
	rec.Hosts = h.hosts
	for i := range rec.Brokers {
		b := &rec.Brokers[i]
		b.Host, b.PID = p.Broker, h.brokerPIDs[b.Name]
		if u, ok := h.procs[p.Broker][b.PID]; ok && b.PID != 0 {
			b.Usage = u
		}
	}
	for i := range rec.Nodes {
		n := &rec.Nodes[i]
		n.Host = p.Nodes[i]
		if u, ok := h.procs[n.Host][n.PID]; ok {
			n.Usage = u
		}
	}
}

// noiseMeter reads this machine's noise over the window (steal time, the
// lateness of this process's timers).
func noiseMeter(ctx context.Context) meter { return noise{stats.StartNoise(ctx)} }

type noise struct{ p *stats.NoiseProbe }

func (n noise) end(_ context.Context, _ int64, got *readings) { got.noise = n.p.Stop() }
