package trial

import (
	"crypto/tls"

	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/transport"
)

// resolveOptions resolves the stack's options, defaults included.
func resolveOptions(c *Case) (map[string]string, error) {
	tr, err := transport.Lookup(c.Stack.Transport)
	if err != nil {
		return nil, err
	}
	return transport.ResolveOptions(tr, c.TransportOptions)
}

// runTLS says how a run's connections are encrypted: the certificates'
// directory its nodes get, its generator's client TLS and what its record
// says of it; its broker leg says what covers a broker.
func (m *measurement) runTLS() (string, *tls.Config, *results.Encryption, error) {
	if !m.c.TLS {
		return "", nil, nil, nil
	}
	plan := tlsPlan{dir: m.Rig.tlsDir(), bundle: m.tls, mutual: m.c.MTLS, legs: []string{"generator→node"}}
	if m.c.Topology.Nodes() > 1 {
		plan.legs = append(plan.legs, "node→node")
	}
	plan, err := m.leg.encryption(plan)
	if err != nil {
		return "", nil, nil, err
	}
	return plan.dir, plan.bundle.Client(plan.mutual), &results.Encryption{Legs: plan.legs, Mutual: plan.mutual}, nil
}
