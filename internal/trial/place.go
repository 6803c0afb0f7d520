package trial

import (
	"context"
	"crypto/tls"
	"fmt"

	"github.com/hopbench/hopbench/internal/broker"
	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/transport"
)

// placement resolves the stack's options into rec and says where its
// nodes listen: on loopback, or for a broker stack on its broker, which
// it makes sure is up.
func (m *measurement) placement(ctx context.Context) (string, *broker.Broker, error) {
	tr, err := transport.Lookup(m.c.Stack.Transport)
	if err != nil {
		return "", nil, err
	}
	opts, err := transport.ResolveOptions(tr, m.c.TransportOptions)
	if err != nil {
		return "", nil, err
	}
	if len(opts) > 0 {
		m.rec.TransportOptions = opts
	}
	name := transport.BrokerOf(tr)
	if name == "" {
		return "127.0.0.1:0", nil, nil
	}
	if m.c.FreshBroker {
		if err := m.Rig.brokers.restart(ctx, name); err != nil {
			return "", nil, err
		}
	}
	brk, err := m.where.ensure(ctx, name)
	if err != nil {
		return "", nil, err
	}
	if m.c.FreshBroker && !brk.Started {
		return "", nil, fmt.Errorf("fresh_brokers: the %s broker at %s was already running (hopbench brokers up, or another run's), so it cannot be started anew: stop it (hopbench brokers down), or leave fresh_brokers out", name, brk.Addr)
	}
	addr := brk.Addr
	if m.c.TLS {
		if err := brk.NeedTLS(m.c.MTLS); err != nil {
			return "", nil, err
		}
		addr = brk.TLSAddr
	}
	// No name: each node gets a queue, topic or subject of its own.
	return tr.Caps().Scheme + "://" + addr + "/", brk, nil
}

// runTLS says how a run's connections are encrypted, and records it: the
// certificates' directory its nodes get and its generator's client TLS.
// Every leg of a broker stack ends at the broker, so it uses the broker's
// certificates (its own, if another hopbench started it) and presents a
// client certificate whenever the broker requires one.
func (m *measurement) runTLS() (string, *tls.Config, error) {
	if !m.c.TLS {
		return "", nil, nil
	}
	brk := m.brk
	dir, bundle, mutual := m.Rig.tlsDir(), m.tls, m.c.MTLS
	legs := []string{"generator→node"}
	if m.c.Topology.Nodes() > 1 {
		legs = append(legs, "node→node")
	}
	if brk != nil {
		mutual = mutual || brk.MTLS
		legs = []string{"generator↔broker", "nodes↔broker"}
		if brk.TLSDir != dir { // another hopbench's broker: its certificates
			own, err := certs.Load(brk.TLSDir)
			if err != nil {
				return "", nil, fmt.Errorf("the %s broker's certificates: %w", brk.Name, err)
			}
			dir, bundle = brk.TLSDir, own
		}
	}
	m.rec.Encrypted = &results.Encryption{Legs: legs, Mutual: mutual}
	return dir, bundle.Client(mutual), nil
}
