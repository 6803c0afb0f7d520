package trial

import (
	"crypto/tls"

	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/transport"
)

// resolveOptions resolves the stack's options into rec.
func (m *measurement) resolveOptions() error {
	tr, err := transport.Lookup(m.c.Stack.Transport)
	if err != nil {
		return err
	}
	opts, err := transport.ResolveOptions(tr, m.c.TransportOptions)
	if err != nil {
		return err
	}
	if len(opts) > 0 {
		m.rec.TransportOptions = opts
	}
	return nil
}

// runTLS says how a run's connections are encrypted, and records it: the
// certificates' directory its nodes get and its generator's client TLS;
// its broker leg says what covers a broker.
func (m *measurement) runTLS() (string, *tls.Config, error) {
	if !m.c.TLS {
		return "", nil, nil
	}
	plan := tlsPlan{dir: m.Rig.tlsDir(), bundle: m.tls, mutual: m.c.MTLS, legs: []string{"generator→node"}}
	if m.c.Topology.Nodes() > 1 {
		plan.legs = append(plan.legs, "node→node")
	}
	plan, err := m.leg.encryption(plan)
	if err != nil {
		return "", nil, err
	}
	m.rec.Encrypted = &results.Encryption{Legs: plan.legs, Mutual: plan.mutual}
	return plan.dir, plan.bundle.Client(plan.mutual), nil
}
