package trial

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/hopbench/hopbench/internal/broker"
	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/proxy"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/topology"
	"github.com/hopbench/hopbench/internal/transport"
)

// brokerLeg is what lies between a run's processes and its broker,
// chosen once from its stack: nothing for a direct stack (its nodes
// listen on their own addresses and call each other), or the broker every
// node and the generator of a broker stack talk through.
type brokerLeg interface {
	// ensure makes sure of the broker and says where the nodes listen
	// ("" for their own address).
	ensure(ctx context.Context) (listen string, err error)
	// encryption is what the run's TLS covers over this leg, given what
	// it covers between nodes.
	encryption(own tlsPlan) (tlsPlan, error)
	// front puts the run's proxies where its calls go: in front of each
	// node (with fronts), or in front of the broker, whose proxies the
	// nodes then listen on. It returns the nodes' listen and how they
	// are started.
	front(ctx context.Context, mesh *proxy.Mesh, listen string, fronts startWrap) (string, startWrap, error)
	// watch calls cancel with the cause if the broker dies or a node
	// loses it, until stop.
	watch(nodes *nodeSet, cancel context.CancelCauseFunc) (stop func())
	// usage is the broker's process here to meter (0: none, or not here).
	usage() int
	// names are the run's brokers.
	names() []string
	// record is the run's brokers as its record carries them.
	record() []results.Broker
	// exited says which broker ended the run; dying whether it is gone
	// or goes within d.
	exited() string
	dying(d time.Duration) bool
}

// startWrap changes how a run's nodes are started (puts proxies in front
// of them).
type startWrap func(topology.StartFunc) topology.StartFunc

func same(start topology.StartFunc) topology.StartFunc { return start }

// tlsPlan is what a run's TLS covers: the certificates' directory the
// nodes get, the bundle the generator's client takes them from, whether
// it is mutual and which legs it encrypts.
type tlsPlan struct {
	dir    string
	bundle *certs.Bundle
	mutual bool
	legs   []string
}

// legOf chooses the broker leg of c's stack; home is where its broker is
// made sure of, brokers the rig's own (a fresh broker is restarted there).
func legOf(c *Case, home brokerHome, brokers *brokerSet) (brokerLeg, error) {
	tr, err := transport.Lookup(c.Stack.Transport)
	if err != nil {
		return nil, err
	}
	name := transport.BrokerOf(tr)
	if name == "" {
		return direct{}, nil
	}
	return &brokered{name: name, scheme: tr.Caps().Scheme, home: home, rig: brokers, fresh: c.FreshBroker, tls: c.TLS, mtls: c.MTLS}, nil
}

// direct is a stack without a broker.
type direct struct{}

func (direct) ensure(context.Context) (string, error)         { return "", nil }
func (direct) encryption(own tlsPlan) (tlsPlan, error)        { return own, nil }
func (direct) watch(*nodeSet, context.CancelCauseFunc) func() { return func() {} }
func (direct) usage() int                                     { return 0 }
func (direct) names() []string                                { return nil }
func (direct) record() []results.Broker                       { return nil }
func (direct) exited() string                                 { return "" }
func (direct) dying(time.Duration) bool                       { return false }

// front puts the proxies in front of the nodes.
func (direct) front(_ context.Context, _ *proxy.Mesh, listen string, fronts startWrap) (string, startWrap, error) {
	return listen, fronts, nil
}

// brokered is a broker stack's broker, made sure of at home (after
// restarting it in the rig's set, for a fresh one).
type brokered struct {
	name, scheme     string
	home             brokerHome
	rig              *brokerSet
	fresh, tls, mtls bool
	brk              *broker.Broker
}

// ensure makes sure of the broker and says where the nodes listen: on the
// broker, each on a queue, topic or subject of its own.
func (b *brokered) ensure(ctx context.Context) (string, error) {
	if b.fresh {
		if err := b.rig.restart(ctx, b.name); err != nil {
			return "", err
		}
	}
	brk, err := b.home.ensure(ctx, b.name)
	if err != nil {
		return "", err
	}
	if b.fresh && !brk.Started {
		return "", fmt.Errorf("fresh_brokers: the %s broker at %s was already running (hopbench brokers up, or another run's), so it cannot be started anew: stop it (hopbench brokers down), or leave fresh_brokers out", b.name, brk.Addr)
	}
	addr := brk.Addr
	if b.tls {
		if err := brk.NeedTLS(b.mtls); err != nil {
			return "", err
		}
		addr = brk.TLSAddr
	}
	b.brk = brk
	// No name: each node gets a queue, topic or subject of its own.
	return b.scheme + "://" + addr + "/", nil
}

// encryption: every leg of a broker stack ends at the broker, so it uses
// the broker's certificates (its own, if another hopbench started it) and
// presents a client certificate whenever the broker requires one.
func (b *brokered) encryption(own tlsPlan) (tlsPlan, error) {
	own.mutual = own.mutual || b.brk.MTLS
	own.legs = []string{"generator↔broker", "nodes↔broker"}
	if b.brk.TLSDir != own.dir { // another hopbench's broker: its certificates
		certs, err := certs.Load(b.brk.TLSDir)
		if err != nil {
			return own, fmt.Errorf("the %s broker's certificates: %w", b.brk.Name, err)
		}
		own.dir, own.bundle = b.brk.TLSDir, certs
	}
	return own, nil
}

// front puts the proxies in front of the broker at once; the nodes and
// the generator then call the broker through them.
func (b *brokered) front(ctx context.Context, mesh *proxy.Mesh, listen string, _ startWrap) (string, startWrap, error) {
	u, err := url.Parse(listen)
	if err != nil {
		return "", nil, fmt.Errorf("the broker's address %q: %w", listen, err)
	}
	at, upstream, err := b.brk.ProxyLeg(u.Host, b.tls)
	if err != nil {
		return "", nil, err
	}
	if u.Host, err = mesh.FrontAt(ctx, results.BrokerHop, at, upstream); err != nil {
		return "", nil, err
	}
	return u.String(), same, nil
}

// watch ends the run if the broker exits, or a node says it lost it.
func (b *brokered) watch(nodes *nodeSet, cancel context.CancelCauseFunc) func() {
	stopBroker := watchBroker(b.brk, func() { cancel(errBrokerExited) })
	stopHealth := nodes.watchHealth(func(why string) { nodes.lost = why; cancel(errNodeUnavailable) })
	return func() { stopBroker(); stopHealth() }
}

func (b *brokered) usage() int                 { return b.brk.PID }
func (b *brokered) names() []string            { return []string{b.name} }
func (b *brokered) record() []results.Broker   { return []results.Broker{brokerRecord(b.brk)} }
func (b *brokered) exited() string             { return brokerExited(b.brk) }
func (b *brokered) dying(d time.Duration) bool { return brokerDying(b.brk, d) }
