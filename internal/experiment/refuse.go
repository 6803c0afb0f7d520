package experiment

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/network"
	"github.com/hopbench/hopbench/internal/transport"
)

// kinds are the kinds of run a spec asks for that take less than every
// setting and stack: on the JVM's nodes, on hosts, one-way, with the
// independent generator, with schema v2, with a connection per request.
type kinds struct{ jvm, hosts, oneWay, independent, v2, perRequest bool }

func (s *Spec) kinds() kinds {
	return kinds{jvm: s.onJVM(), hosts: len(s.Hosts) > 0, oneWay: s.Mode == ModeOneWay,
		independent: slices.Contains(s.Generators, GeneratorIndependent),
		v2: slices.ContainsFunc(s.Schemas, func(sc string) bool {
			p, err := evolution.ParseSchema(sc)
			return err == nil && p.Has(evolution.V2)
		}),
		perRequest: slices.ContainsFunc(s.Connections, func(c load.ConnMode) bool { return c.PerRequest })}
}

// refuseByKind refuses, in two tables read in one place, what the spec's
// kinds of run do not take: settings, then each parsed stack.
func (s *Spec) refuseByKind(bad func(string, string, ...any)) {
	k := s.kinds()
	for _, r := range s.refusals(k) {
		if r.kind && r.set {
			bad(r.field, "%s", r.msg)
		}
	}
	for i, name := range s.Stacks {
		if st, ok := s.stacks[name]; ok {
			for _, msg := range s.stackRefusals(k, name, st) {
				bad(fmt.Sprintf("stacks[%d]", i), "%s", msg)
			}
		}
	}
}

// refusal is a setting a kind of run does not take: when the spec is of
// that kind and sets it, its field is refused with msg.
type refusal struct {
	kind, set  bool
	field, msg string
}

const jvmApart = "; put the JVM's runs in a part of their own without it"

func (s *Spec) refusals(k kinds) []refusal {
	onJVM := func(name string) string { return "runtime jvm: the JVM node does not take " + name + " yet" + jvmApart }
	onHosts := func(what string) string {
		return "runs on hosts do not take " + what + " yet: leave it out of a spec with hosts"
	}
	oneWay := func(what string) string { return "one-way runs do not take " + what }
	tls, h2 := slices.Contains(s.TLS, true), slices.Contains(s.HTTP2, true)
	direct := slices.Contains([]string{"", "direct"}, strings.Join(s.Topologies, ","))
	return []refusal{
		{k.jvm, tls, "tls", onJVM("tls")},
		{k.jvm, h2, "http2", onJVM("http2")},
		{k.jvm, slices.ContainsFunc(s.Networks, func(p network.Profile) bool { return !p.IsLoopback() }), "networks", onJVM("networks")},
		{k.jvm, len(s.TransportOptions) > 0, "transport_options", onJVM("transport_options")},
		{k.jvm, k.perRequest, "connections: per-request", onJVM("connections: per-request")},
		{k.hosts, tls, "tls", onHosts("TLS between the hosts' nodes")},
		{k.hosts, s.Memory > 0, "memory", onHosts("memory limits")},
		{k.hosts, s.Pin != "none", "pin", onHosts("CPU pinning")},
		{k.hosts, s.NetworkMode == network.Kernel, "network_mode", onHosts("kernel network emulation (the hosts are namespaces already: shape them with hosts up --bandwidth)")},
		{k.hosts, k.independent, "generators", onHosts("the independent generator")},
		{k.hosts, len(s.Schemas) > 0, "schemas", onHosts("schema trials")},
		{k.oneWay, !direct, "topologies", "a one-way message goes from publisher to consumers: topologies [direct]"},
		{k.oneWay, k.hosts, "mode", oneWay("hosts")},
		{k.oneWay, k.jvm, "mode", oneWay("runtimes: jvm")},
		{k.oneWay, s.Memory > 0, "mode", oneWay("memory")},
		{k.oneWay, len(s.Schemas) > 0, "mode", oneWay("schemas")},
		{k.oneWay, k.independent, "mode", oneWay("generators: independent")},
		{k.oneWay, k.perRequest, "mode", oneWay("connections: per-request")},
		{k.independent, tls || h2, "generators", "the independent generator speaks plain HTTP/1.1: set tls and http2 false where it runs"},
		{k.independent, slices.ContainsFunc(s.Connections, func(c load.ConnMode) bool { return c.PerRequest || c.Pooled > 1 }), "connections", "the independent generator keeps one connection: leave connections at 1 where it runs"},
		{k.independent, !direct, "topologies", "the independent generator checks hopbench on a direct call: topologies [direct]"},
		{k.v2, k.jvm, "schemas", "runtime jvm: the JVM node speaks v1 only; put the runs of v2 in a part of their own with runtimes [go]"},
		{k.v2, k.independent, "schemas", "generator independent: the cross-check client sends v1's messages only; put the runs of v2 in a part of their own with generators [hopbench]"},
	}
}

// stackRefusals say why a stack, as the spec wrote it (name) and parsed,
// cannot run in the spec's kinds of run, or by its declared capabilities.
func (s *Spec) stackRefusals(k kinds, name string, st transport.Stack) []string {
	_, messenger := transport.MessengerOf(st.Transport)
	tr, err := transport.Lookup(st.Transport)
	rows := []struct {
		kind bool
		msg  string
	}{
		{k.perRequest, because(transport.PerRequestRefusal(st.Transport), "%v; leave %s out of a part with connections: per-request", name)},
		{k.independent && st.String() != "rest", fmt.Sprintf("%q: the independent generator speaks REST with JSON bodies only; list rest alone in a part with generators", name)},
		{k.jvm, because(jvm.Serves(st), "runtime jvm: %v"+jvmApart)},
		{k.v2 && err == nil && transport.DecodesItself(tr), fmt.Sprintf("schema v2: %[1]s decodes into v1's messages itself, so its nodes speak v1 only; leave %[1]s out of a part with v2", st.Transport)},
		{true, s.capsRefusal(st)},
		{k.oneWay, because(messenger, "%v")},
	}
	var out []string
	for _, r := range rows {
		if r.kind && r.msg != "" {
			out = append(out, r.msg)
		}
	}
	return out
}

// because is err formatted first into format with args; "" for no err.
func because(err error, format string, args ...any) string {
	if err == nil {
		return ""
	}
	return fmt.Sprintf(format, append([]any{err}, args...)...)
}

// capsRefusal refuses what a stack's declared capabilities rule out:
// running it plain when it needs TLS (rest-h3: QUIC carries TLS 1.3), on
// hosts of their own when it runs on this machine only, or over HTTP/2
// when it talks through a broker.
func (s *Spec) capsRefusal(st transport.Stack) string {
	c, err := transport.CapsOf(st.Transport)
	switch {
	case err != nil:
	case c.NeedsTLS != "" && (len(s.TLS) == 0 || slices.Contains(s.TLS, false)):
		return c.NeedsTLS + ": set tls: true (a part of its own can have it)"
	case c.LocalOnly != "" && len(s.Hosts) > 0:
		return c.LocalOnly
	case c.Broker != "" && slices.Contains(s.HTTP2, true):
		return fmt.Sprintf("%s talks through %s, not HTTP: http2 applies to HTTP stacks only; set http2: false, or give %s a part of its own", st.Transport, c.Broker, st)
	}
	return ""
}
